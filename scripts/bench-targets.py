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

sqlite_disk = disk("sqlite-autocommit")

# The targets of the storage-engine issue (docs/benchmarks.md, "The targets").
rows = [
    ("W1 put, none ≥ 2 × sqlite-batch1000", rate("swift", "small", "put"), "2 × sqlite-batch1000",
     2 * rate("sqlite-batch1000", "small", "put"), 1.0, "ops/s"),
    ("W1 put, always ≥ raw + fdatasync (2,000 entries each)", rate("swift-always", "small", "put"), "raw-fsync",
     rate("raw-fsync", "small", "put"), 1.0, "ops/s"),
    ("W1 get, verified ≥ 1.5 × best peer", rate("swift", "small", "get"), best_get_peer, best_get, 1.5, "ops/s"),
    ("W1 reopen ≥ 1.5 × best peer", rate("swift", "small", "reopen"), best_reopen_peer, best_reopen, 1.5, "ops/s"),
    ("W1 miss ≥ 20 × sqlite", rate("swift", "small", "miss"), "sqlite-batch1000",
     rate("sqlite-batch1000", "small", "miss"), 20.0, "ops/s"),
    ("W2 put ≥ raw", rate("swift", "large", "put", "MB_s"), "raw", rate("raw", "large", "put", "MB_s"), 1.0, "MB/s"),
    ("W2 put ≥ 80 % of min(SHA-256, write)", rate("swift", "large", "put", "MB_s"), "min(SHA-256, dd write)",
     min(sha256, write), 0.8, "MB/s"),
    ("W2 get, verified ≥ 85 % of SHA-256", rate("swift", "large", "get", "MB_s"), "SHA-256 (16 KiB blocks)",
     sha256, 0.85, "MB/s"),
]

print("| target | BlobStore | reference | reference value | ratio | met |")
print("|---|---:|---|---:|---:|---|")
for name, ours, reference, value, needed, unit in rows:
    ratio = ours / value
    print(f"| {name} | {ours:,.0f} {unit} | {reference} | {value:,.0f} {unit} | {ratio:.2f} × "
          f"| {'yes' if ratio >= needed else 'NO'} |")
ours_disk = disk("swift")
print(f"| W1 disk ≤ 0.95 × SQLite's | {ours_disk:.1f} MiB | sqlite-autocommit | {sqlite_disk:.1f} MiB "
      f"| {ours_disk / sqlite_disk:.2f} × | {'yes' if ours_disk <= 0.95 * sqlite_disk else 'NO'} |")
