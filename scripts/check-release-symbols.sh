#!/usr/bin/env bash
# Checks that a release build of the BlobStore library contains no fault-injection code:
# `FaultInjection` and `TestHooks` are compiled only with BLOBSTORE_FAULT_INJECTION, which
# Package.swift sets for debug builds. Builds the library in both configurations and lists the
# symbols of its object files with nm: the debug objects must name them (so the pattern is
# right), the release objects must not. Exits 1 when a release object names one.
#
#   scripts/check-release-symbols.sh
set -euo pipefail
cd "$(dirname "$0")/.."

pattern='FaultInjection|TestHooks'

# The names of the defined and undefined symbols of the library's objects in configuration $1,
# one a line (not the object files' names: FaultInjection.swift.o exists, empty, in release).
symbols() {
    swift build -c "$1" --target BlobStore >&2
    local directory object
    directory="$(swift build -c "$1" --show-bin-path)/BlobStore.build"
    while IFS= read -r -d '' object; do
        nm --no-sort "$object" | awk '{ print $NF }'
    done < <(find "$directory" -name '*.o' -print0)
}

debug_count="$(symbols debug | grep -cE "$pattern" || true)"
if [[ "$debug_count" -eq 0 ]]; then
    echo "check-release-symbols: the debug build names no symbol matching $pattern; is the pattern stale?" >&2
    exit 1
fi
release_symbols="$(symbols release | grep -E "$pattern" || true)"
if [[ -n "$release_symbols" ]]; then
    echo "check-release-symbols: the release build of BlobStore contains fault-injection symbols:" >&2
    echo "$release_symbols" | head -20 >&2
    exit 1
fi
echo "check-release-symbols: release BlobStore has no symbol matching $pattern (debug has $debug_count)"
