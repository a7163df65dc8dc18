#!/usr/bin/env bash
# The eviction policies' miss ratios beside libCacheSim's (docs/benchmarks.md, "Eviction
# policies", records one run).
#
#   scripts/hit-ratio.sh [REQUESTS] [-- BENCH OPTIONS]
#
# Generates the traces (Zipf 0.8 and 1.0, each also mixed with one-hit-wonder scans, and a loop;
# 100,000 objects of 4 KiB; REQUESTS requests each, 1,000,000 by default), replays each at 0.1 %,
# 1 % and 10 % of its footprint under LRU, SIEVE and S3-FIFO through the policies' queues alone
# and through a real store (`blobstore-bench hit-ratio`), then runs the same traces through
# libCacheSim's LRU, Sieve and S3FIFO (scripts/hit-ratio-oracle.py, Python's `libcachesim`,
# installed with pip when missing) and prints one table of both, with every difference over one
# percentage point listed. Options after `--` go to blobstore-bench (e.g. `--sizes
# lognormal:4096,1.5`, `--engines model`).
set -euo pipefail
cd "$(dirname "$0")/.."
requests="${1:-1000000}"
shift || true
[ "${1:-}" = "--" ] && shift

python3 -c "import libcachesim" 2>/dev/null || python3 -m pip install --quiet libcachesim

swift build -c release --product blobstore-bench >&2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
.build/release/blobstore-bench hit-ratio --requests "$requests" --objects 100000 \
    --generate zipf:0.8 --generate zipf-scan:0.8 --generate zipf:1.0 --generate zipf-scan:1.0 --generate loop \
    --write-traces "$work/traces" --dir "$work/stores" --json "$@" >"$work/ours.jsonl"
python3 scripts/hit-ratio-oracle.py --compare "$work/ours.jsonl" "$work"/traces/*.csv
# How fast each replay ran (the store engine's speed is the store's, values loose, no syncs).
python3 - "$work/ours.jsonl" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
print("\nReplay speed, requests per second:\n")
print("| trace | size | engine | LRU | SIEVE | S3-FIFO |")
print("|---|---:|---|---:|---:|---:|")
keys = sorted({(r["trace"], r["fraction"], r["engine"]) for r in rows})
for trace, fraction, engine in keys:
    speed = {r["policy"]: r["requests"] / r["seconds"] for r in rows
             if (r["trace"], r["fraction"], r["engine"]) == (trace, fraction, engine) and r["seconds"] > 0}
    cells = " | ".join(f"{speed[p]:,.0f}" if p in speed else "-" for p in ("lru", "sieve", "s3fifo"))
    print(f"| {trace} | {fraction * 100:g} % | {engine} | {cells} |")
PY
