/// The paths of a store's files (docs/format.md, "Layout").
struct StoreLayout: Sendable {
    let root: String
    /// The shard directories found to be plain directories (``checkedBlobPath(_:)``).
    let checkedShards = CheckedShards()

    init(root: String) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
    }

    var lock: String { root + "/LOCK" }
    var current: String { root + "/CURRENT" }
    var cacheDirTag: String { root + "/CACHEDIR.TAG" }
    var blobsRoot: String { root + "/blobs" }
    var blobsSHA256: String { root + "/blobs/sha256" }
    var tmp: String { root + "/tmp" }
    var quarantine: String { root + "/quarantine" }
    var packsDirectory: String { root + "/packs" }

    /// `packs/pack-<number>`.
    func pack(_ number: UInt32) -> String { packsDirectory + "/pack-\(number)" }

    var limits: String { root + "/limits" }

    func journal(generation: UInt64) -> String { root + "/journal-\(generation)" }
    func manifest(generation: UInt64) -> String { root + "/manifest-\(generation)" }
    /// The eviction policy's queue as compaction left it (``PolicySnapshot``).
    func policy(generation: UInt64) -> String { root + "/policy-\(generation)" }

    /// The generation of a `journal-<N>`, `manifest-<N>` or `policy-<N>` name, or `nil` for other
    /// names.
    static func generation(ofFileNamed name: String) -> UInt64? {
        for prefix in ["journal-", "manifest-", "policy-"] where name.hasPrefix(prefix) {
            return UInt64(name.dropFirst(prefix.count))
        }
        return nil
    }

    /// The store's own names at its top; these, generations, companion files and leftovers of
    /// an atomic write are all that may appear there: anything else makes a non-empty directory
    /// "not a store".
    static let knownNames: Set<String> = [
        "LOCK", "CURRENT", "CACHEDIR.TAG", "limits", "blobs", "packs", "tmp", "quarantine",
    ]

    static func isStoreFileName(_ name: String) -> Bool {
        knownNames.contains(name) || name.hasPrefix("journal-") || name.hasPrefix("manifest-")
            || isPolicyFileName(name) || isCompanionFileName(name) || isAtomicWriteLeftover(name)
    }

    /// `policy-<N>`, the eviction policy's snapshot of generation N.
    static func isPolicyFileName(_ name: String) -> Bool {
        name.hasPrefix("policy-") && generation(ofFileNamed: name) != nil
    }

    /// Whether `name` is a companion file's: `<module>-stats` (lowercase ASCII letters, then
    /// `-stats`), a small file another module of the package keeps at the top of the store
    /// (`BlobStore.writeSmallFile(_:_:)`; docs/format.md, "Layout"). The module owns
    /// its name and content; the store never reads one, and counts it as part of the store.
    static func isCompanionFileName(_ name: String) -> Bool {
        let suffix = "-stats"
        guard name.hasSuffix(suffix) else { return false }
        let module = name.utf8.dropLast(suffix.utf8.count)
        return !module.isEmpty && module.allSatisfy { $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }
    }

    /// A temporary name of ``BlobStore/writeFileAtomically(_:_:directory:mode:)`` (`CURRENT.<hex>`,
    /// `CACHEDIR.TAG.<hex>`): left behind when a creator was killed, or still in use by a
    /// concurrent one.
    static func isAtomicWriteLeftover(_ name: String) -> Bool {
        if name.hasPrefix("CURRENT.") || name.hasPrefix("CACHEDIR.TAG.") || name.hasPrefix("limits.") { return true }
        guard let dot = name.firstIndex(of: ".") else { return false }
        let base = String(name[..<dot])
        return isCompanionFileName(base) || isPolicyFileName(base)
    }

    /// `blobs/sha256/ab`: the shard directory of a digest (its first two hex digits; docs/format.md
    /// gives the measurements behind one level).
    func shardDirectory(_ hex: String) -> String {
        blobsSHA256 + "/" + String(hex.utf8.prefix(2))!
    }

    /// `blobs/sha256/ab/<64 hex>`.
    func blobPath(_ digest: SHA256Digest) -> String {
        let hex = digest.hex
        return shardDirectory(hex) + "/" + hex
    }

    /// The content of CACHEDIR.TAG (https://bford.info/cachedir/).
    static let cacheDirTagContent =
        "Signature: 8a477f597d28d172789f06886806bc55\n"
        + "# This file is a cache directory tag created by BlobStore.\n"
        + "# For information about cache directory tags, see https://bford.info/cachedir/\n"
}
