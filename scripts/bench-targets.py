#!/usr/bin/env python3
"""Checks the performance targets of docs/benchmarks.md against one peer-benchmark run.

    scripts/bench-targets.py [/tmp/peerbench/out/results.json]

Prints a Markdown table: each target, BlobStore's median, the reference it is compared with
(a peer's median or a physical limit, from the same run), the ratio, and whether it is met.
The peers are the caches (cacache, diskcache, SQLite, git); `raw*` are baselines, compared with
where the issue names them, and shown for the rest.
"""
import json
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "/tmp/peerbench/out/results.json"
results = json.load(open(path))
peers = results["peers"]
limits = results["limits"]


def rate(peer, workload, phase, unit="ops_s"):
    return peers[peer]["summary"][workload][phase][unit]["median"]


def best(workload, phase, unit="ops_s"):
    """The best peer (not BlobStore, not a raw baseline), and its median."""
    candidates = [(rate(name, workload, phase, unit), name) for name in peers
                  if not name.startswith(("swift", "raw")) and phase in peers[name]["summary"].get(workload, {})]
    return max(candidates)


def disk(peer):
    return peers[peer]["summary"]["small"]["disk"]["actual_bytes"]["median"] / 2**20


sha256 = limits["openssl_MBps"]["sha256@16384"]["median"]
write = limits["dd_MBps"]["write_fdatasync"]["median"]
best_get, best_get_peer = best("small", "get")
best_reopen, best_reopen_peer = best("small", "reopen")
smallest_disk = min((disk(name), name) for name in peers
                    if not name.startswith(("swift", "raw")) and peers[name]["count"].get("small", 0) == 0)

rows = [
    ("W1 put, none ≥ sqlite-batch1000", rate("swift", "small", "put"), "sqlite-batch1000",
     rate("sqlite-batch1000", "small", "put"), 1.0, "ops/s"),
    ("W1 put, none ≥ 2 × sqlite-autocommit", rate("swift", "small", "put"), "2 × sqlite-autocommit",
     2 * rate("sqlite-autocommit", "small", "put"), 1.0, "ops/s"),
    ("W1 get, verified ≥ 1.2 × best peer", rate("swift", "small", "get"), best_get_peer, best_get, 1.2, "ops/s"),
    ("(W1 get, verified, against the raw baseline)", rate("swift", "small", "get"), "raw",
     rate("raw", "small", "get"), 1.0, "ops/s"),
    ("W1 miss ≥ 10 × sqlite", rate("swift", "small", "miss"), "sqlite-batch1000",
     rate("sqlite-batch1000", "small", "miss"), 10.0, "ops/s"),
    ("W1 reopen ≥ 1.2 × best peer", rate("swift", "small", "reopen"), best_reopen_peer, best_reopen, 1.2, "ops/s"),
    ("(W1 reopen against the raw baseline)", rate("swift", "small", "reopen"), "raw",
     rate("raw", "small", "reopen"), 1.0, "ops/s"),
    ("W2 put ≥ 50 % of min(SHA-256, write)", rate("swift", "large", "put", "MB_s"), "min(SHA-256, dd write)",
     min(sha256, write), 0.5, "MB/s"),
    ("W2 get, verified ≥ 70 % of SHA-256", rate("swift", "large", "get", "MB_s"), "SHA-256 (16 KiB blocks)",
     sha256, 0.7, "MB/s"),
    ("W2 get, not verified ≥ raw", rate("swift-noverify", "large", "get", "MB_s"), "raw",
     rate("raw", "large", "get", "MB_s"), 1.0, "MB/s"),
]

print("| target | BlobStore | reference | reference value | ratio | met |")
print("|---|---:|---|---:|---:|---|")
for name, ours, reference, value, needed, unit in rows:
    ratio = ours / value
    print(f"| {name} | {ours:,.0f} {unit} | {reference} | {value:,.0f} {unit} | {ratio:.2f} × "
          f"| {'yes' if ratio >= needed else 'NO'} |")
ours_disk = disk("swift")
print(f"| W1 disk used ≤ smallest peer | {ours_disk:.1f} MiB | {smallest_disk[1]} | {smallest_disk[0]:.1f} MiB "
      f"| {ours_disk / smallest_disk[0]:.2f} × | {'yes' if ours_disk <= smallest_disk[0] else 'NO'} |")
