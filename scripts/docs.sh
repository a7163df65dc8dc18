#!/usr/bin/env bash
# Builds the DocC documentation of the BlobStore library into .build/docs (open
# .build/docs/BlobStore.doccarchive with `docc preview`, or serve it as static files).
# Fails on any DocC warning, such as a broken or ambiguous symbol link.
set -euo pipefail
cd "$(dirname "$0")/.."

graphs=.build/docs/symbol-graphs
rm -rf .build/docs
mkdir -p "$graphs"
# A scratch build of its own (wiped above): an up-to-date build would emit no symbol graph.
swift build --scratch-path .build/docs/build --target BlobStore \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
docc convert Sources/BlobStore/BlobStore.docc \
    --additional-symbol-graph-dir "$graphs" \
    --output-path .build/docs/BlobStore.doccarchive \
    --fallback-display-name BlobStore --fallback-bundle-identifier org.blobstore.BlobStore \
    --warnings-as-errors
echo "documentation: .build/docs/BlobStore.doccarchive"
