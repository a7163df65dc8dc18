#!/usr/bin/env bash
# Measures the pack threshold (docs/benchmarks.md, "Pack threshold"): for each value size, the
# shared benchmark's small workload with every value packed and with every value loose, beside
# SQLite (1000 puts per transaction), one run each, durability none.
#   scripts/bench-threshold.sh [SIZE...]     default: 100 1024 4096 16384 65536 262144 1048575
# Entries per size keep each run near 80 MB of values (20,000 at most). Results land in
# /tmp/peerbench-threshold/out-<size>/; the table is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DIR="${BLOBSTORE_PEER_BENCH:-$(cd .. && pwd)/shared/bench}"
ROOT=/tmp/peerbench-threshold
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(100 1024 4096 16384 65536 262144 1048575)

scripts/install-deps.sh
swift build -c release --product blobstore-bench >&2
mkdir -p "$ROOT"
binary="$ROOT/blobstore-bench"
cp "$(swift build -c release --show-bin-path)/blobstore-bench" "$binary"
python3 - "$BENCH_DIR/peers.json" "$binary" "$ROOT/peers.json" <<'PYTHON'
import json, sys
peers_file, binary, out = sys.argv[1:]
peers = [p for p in json.load(open(peers_file)) if p["name"] == "sqlite-batch1000"]
for name, threshold, what in [("packed", "1048576", "every value below 1 MiB packed"),
                              ("loose", "0", "every value a file of its own")]:
    peers.append(dict(name="swift-" + name, cmd=[binary, "--durability", "none", "--pack-threshold", threshold],
                      impl="BlobStore, " + what, durability="none", dedup="yes", read_check="sha256"))
json.dump(peers, open(out, "w"), indent=1)
PYTHON

for size in "${sizes[@]}"; do
    entries=$(( 80000000 / size ))
    (( entries > 20000 )) && entries=20000
    (( entries < 80 )) && entries=80
    "$BENCH_DIR/run_all.sh" --peers "$ROOT/peers.json" --only sqlite-batch1000,swift-packed,swift-loose \
        --workloads small --small-size "$size" --small-entries "$entries" --small-label "W1 $size B" \
        --no-large-data --no-gitsrc --no-limits --skip-probe --runs 1 --max-load 0 \
        --root "$ROOT" --out "$ROOT/out-$size" >&2
done

python3 - "$ROOT" "${sizes[@]}" <<'PYTHON'
import json, sys
root, sizes = sys.argv[1], sys.argv[2:]
print("| value size | entries | put µs packed / loose / SQLite | get µs packed / loose / SQLite "
      "| reopen µs packed / loose | disk per entry packed / loose / SQLite |")
print("|---:|---:|---|---|---|---|")
for size in sizes:
    result = json.load(open(f"{root}/out-{size}/results.json"))
    summary = {name: peer["summary"]["small"] for name, peer in result["peers"].items()}
    entries = result["data"]["small_entries"]
    def us(peer, phase):
        return f'{summary[peer][phase]["us_per_op_median"]:.1f}' if phase in summary[peer] else "-"
    def disk(peer):
        return f'{summary[peer]["disk"]["actual_bytes"]["median"] / entries:,.0f}'
    print(f"| {int(size):,} | {entries:,} | {us('swift-packed', 'put')} / {us('swift-loose', 'put')} / "
          f"{us('sqlite-batch1000', 'put')} | {us('swift-packed', 'get')} / {us('swift-loose', 'get')} / "
          f"{us('sqlite-batch1000', 'get')} | {us('swift-packed', 'reopen')} / {us('swift-loose', 'reopen')} "
          f"| {disk('swift-packed')} / {disk('swift-loose')} / {disk('sqlite-batch1000')} |")
PYTHON
