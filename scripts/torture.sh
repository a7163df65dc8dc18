#!/usr/bin/env bash
# Crash torture by hand: builds blobstore-torture in release mode and runs ROUNDS rounds
# (default 1000) of three worker processes doing mixed put/get/remove/compact/gc on one fresh
# store, SIGKILLed at random moments, with durabilities mixed; each round is checked against what
# the workers acknowledged (docs/reliability.md). Prints the summary line (and progress every 100
# rounds on standard error); exits 1 on any loss, wrong read, recovery failure or error.
#
#   scripts/torture.sh [ROUNDS] [more blobstore-torture torture options: --seed S, --workers W, …]
set -euo pipefail
cd "$(dirname "$0")/.."

rounds="${1:-1000}"
shift || true
scratch="${BLOBSTORE_TORTURE_SCRATCH:-.build/torture-release}"
swift build -c release --scratch-path "$scratch" --product blobstore-torture >&2
store="$(mktemp -d "${TMPDIR:-/tmp}/blobstore-torture.XXXXXX")"
"$scratch/release/blobstore-torture" torture --store "$store" --rounds "$rounds" --workers 3 "$@" \
    && rm -rf "$store"
