#!/usr/bin/env bash
# Runs the benchmarks behind docs/benchmarks.md:
#   scripts/bench.sh peers [RUN_ALL_OPTION...]   the shared peer benchmark (../shared/bench) with
#                                                BlobStore as four more peers (~25 min)
#   scripts/bench.sh scale [SCALE_OPTION...]      BlobStore's own scale workloads (~2 min)
# The peer benchmark is looked for in ../shared/bench, or where $BLOBSTORE_PEER_BENCH says.
# Both build blobstore-bench in release mode first. Results of `peers` land in
# /tmp/peerbench/out (results.md, results.json, logs/); `scale` prints one JSON line per figure.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DIR="${BLOBSTORE_PEER_BENCH:-$(cd .. && pwd)/shared/bench}"

build() {
    scripts/install-deps.sh
    swift build -c release --product blobstore-bench >&2
    # A copy, so that a rebuild during a long run does not change the binary under it.
    mkdir -p /tmp/peerbench
    cp "$(swift build -c release --show-bin-path)/blobstore-bench" /tmp/peerbench/blobstore-bench
    echo /tmp/peerbench/blobstore-bench
}

case "${1:-}" in
    peers)
        shift
        binary="$(build)"
        [[ -x "$BENCH_DIR/run_all.sh" ]] || { echo "no peer benchmark at $BENCH_DIR" >&2; exit 1; }
        # The peers of the shared benchmark plus BlobStore in each durability mode and without
        # read verification; the `always` mode runs W1 with 2,000 entries, as raw-fsync does.
        python3 - "$BENCH_DIR/peers.json" "$binary" /tmp/peerbench/peers-with-swift.json <<'PYTHON'
import json, sys
peers_file, binary, out = sys.argv[1:]
peers = json.load(open(peers_file))
dedup = ("yes: SHA-256 content address; a put of known content writes no blob (values of 1 MiB or "
         "more are written while hashed, then discarded)")
def swift(name, args, durability, read_check, impl, **extra):
    return dict(name=name, cmd=[binary] + args, impl=impl, durability=durability, dedup=dedup,
                read_check=read_check, **extra)
peers += [
    swift("swift", ["--durability", "none"],
          "none: every put is one write(2) of a journal record before it returns (survives a process "
          "crash); no fsync", "sha256 verified on every get",
          "Swift 6.3, BlobStore, put(_:for:) / value(for:), one op at a time"),
    swift("swift-batched", ["--durability", "batched"],
          "batched: group commit (packs, blobs, directories, journal fdatasync) at most 50 ms after a "
          "write and every 256 new loose blobs", "sha256 verified on every get", "as swift, durability batched"),
    swift("swift-always", ["--durability", "always"],
          "always: before each put returns, fdatasync of the pack (a new value below 64 KiB: a needle) "
          "or of the blob + fsync of its shard directory (larger), then fdatasync of the journal",
          "sha256 verified on every get",
          "as swift, durability always; W1 with 2,000 entries (rates are per op)", count={"small": 2000}),
    swift("swift-noverify", ["--durability", "none", "--no-verify"], "as swift",
          "none (size only)", "as swift, verifyReads off"),
]
json.dump(peers, open(out, "w"), indent=1)
PYTHON
        exec "$BENCH_DIR/run_all.sh" --peers /tmp/peerbench/peers-with-swift.json "$@"
        ;;
    scale)
        shift
        binary="$(build)"
        exec "$binary" scale "$@"
        ;;
    *)
        echo "usage: scripts/bench.sh peers [run_all.sh option...] | scale [--entries N] [--only LIST]" >&2
        exit 64
        ;;
esac
