#!/usr/bin/env bash
# Builds the DocC documentation of the libraries into .build/docs, one archive per module:
# .build/docs/BlobStore.doccarchive, BlobStoreCache.doccarchive, BlobStoreHTTP.doccarchive,
# BlobStoreRemote.doccarchive and BlobStoreProxy.doccarchive.
# Each is built from the module's catalog, Sources/<Module>/<Module>.docc, and the symbol graphs
# of a build of that target, and can be served as static files:
#   python3 -m http.server -d .build/docs/BlobStoreHTTP.doccarchive   # then /documentation/blobstorehttp/
# (`docc preview Sources/<Module>/<Module>.docc --additional-symbol-graph-dir
# .build/docs/symbol-graphs/<Module>` rebuilds one as its catalog is edited).
# Fails on any DocC warning, such as a broken or ambiguous symbol link, and on a top-level
# symbol that the landing page, Sources/<Module>/<Module>.docc/<Module>.md, leaves out of its Topics.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(BlobStore BlobStoreCache BlobStoreHTTP BlobStoreRemote BlobStoreProxy)
graphs=.build/docs/symbol-graphs
rm -rf .build/docs
mkdir -p "$graphs"
for module in "${modules[@]}"; do
    # A scratch build of its own (wiped above): an up-to-date build would emit no symbol graph.
    # The flags are the same for every target, so a dependency built for an earlier module is
    # not compiled again; each build emits its module's graphs (<Module>.symbols.json, and
    # <Module>@<Other>.symbols.json for extensions of other modules' types), which are moved
    # to a directory of the module's own. Extension block symbols give a module's extensions of
    # another module's types pages of their own (BlobStoreRemote's BlobStoreError.Code.remote,
    # under "Extended Modules"); without them DocC drops those symbols.
    swift build --scratch-path .build/docs/build --target "$module" \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-extension-block-symbols \
        -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
    mkdir -p "$graphs/$module"
    mv "$graphs/$module.symbols.json" "$graphs/$module/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec mv {} "$graphs/$module/" \;
done
for module in "${modules[@]}"; do
    archive=".build/docs/$module.doccarchive"
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --output-path "$archive" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.blobstore.$module" \
        --warnings-as-errors
    # Every top-level symbol is in the landing page's Topics: DocC puts the others in groups of
    # its own ("Classes", "Structures", …), marked as generated, and this refuses them.
    python3 - "$archive/data/documentation/${module,,}.json" "$module" <<'PYTHON'
import json, sys
page, module = json.load(open(sys.argv[1])), sys.argv[2]
uncurated = [(section["title"], identifier.rsplit("/", 1)[-1])
             for section in page.get("topicSections", []) if section.get("generated")
             for identifier in section["identifiers"]]
for group, name in uncurated:
    print(f"error: {name} ({group}) is in no group of the Topics of Sources/{module}/{module}.docc/{module}.md",
          file=sys.stderr)
sys.exit(1 if uncurated else 0)
PYTHON
    echo "documentation: $archive"
done
