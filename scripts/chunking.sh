#!/usr/bin/env bash
# The content-defined chunker's speed and dedup at several average chunk sizes
# (`blobstore-bench chunking`; docs/benchmarks.md, "Content-defined chunking", keeps a run).
#
#   scripts/chunking.sh [MIB] [OLD] [NEW]    # defaults: 256, HEAD~10, HEAD
#
# A random value of MIB MiB is cut, its chunks verified on every core against its recipe, and cut
# again with ten runs of 100 bytes inserted; and two versions of this repository's sources (the
# commits OLD and NEW) as tar archives, twice: as
# `git archive` writes them (every file's time is its commit's, so each 512-byte tar header of
# NEW differs from OLD's) and with every file's time, owner and order made the same, which is
# what dedup of the contents alone finds.
set -euo pipefail
cd "$(dirname "$0")/.."
mib="${1:-256}"
old="${2:-HEAD~10}"
new="${3:-HEAD}"
swift build -c release --product blobstore-bench >&2
bench="$(swift build -c release --show-bin-path)/blobstore-bench"
work="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-chunking.XXXXXX")"
trap 'rm -rf "$work"' EXIT
for name in old new; do
    revision=$([ "$name" = old ] && echo "$old" || echo "$new")
    git archive --format=tar "$revision" >"$work/$name.tar"
    mkdir "$work/$name"
    tar -xf "$work/$name.tar" -C "$work/$name"
    tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -cf "$work/$name-same-times.tar" -C "$work/$name" .
done
echo "OLD = $(git rev-parse --short "$old"), NEW = $(git rev-parse --short "$new")"
"$bench" chunking --mib "$mib" --pair "$work/old.tar" "$work/new.tar" \
    --pair "$work/old-same-times.tar" "$work/new-same-times.tar"
