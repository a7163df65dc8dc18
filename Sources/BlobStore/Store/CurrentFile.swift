import Glibc

/// CURRENT: the file that names the live generation (docs/format.md, "CURRENT").
///
/// ```
/// blobstore-format 1
/// generation 7
/// manifest manifest-7
/// ```
///
/// The `manifest` line is present once a compaction has written one. CURRENT is only ever
/// replaced by `rename(2)`, so its ``FileVersion`` changes with every new generation: that is
/// how other processes notice one.
struct CurrentFile: Equatable, Sendable {
    var generation: UInt64
    var hasManifest: Bool
    /// CURRENT's version when it was read.
    var version: FileVersion? = nil

    /// The file's content.
    var content: String {
        "blobstore-format \(BlobStore.formatVersion)\ngeneration \(generation)\n"
            + (hasManifest ? "manifest manifest-\(generation)\n" : "")
    }

    /// Reads and checks CURRENT.
    static func read(_ layout: StoreLayout) throws -> CurrentFile {
        let fd = try Syscalls.open(layout.current, O_RDONLY)
        defer { Syscalls.close(fd) }
        let version = FileVersion(try Syscalls.fstat(fd))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = try buffer.withUnsafeMutableBytes { try Syscalls.readFully(fd, into: $0) }
        let lines = String(decoding: buffer[0..<count], as: UTF8.self).split(separator: "\n")
        guard lines.first?.hasPrefix("blobstore-format ") == true else {
            throw BlobStoreError(
                .notAStore,
                "\(layout.root) is not a BlobStore store: its CURRENT file belongs to another program. "
                    + "Choose an empty or new directory for the store.", path: layout.current)
        }
        var format: Int?
        var generation: UInt64?
        var manifest: Substring?
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "blobstore-format": format = Int(parts[1])
            case "generation": generation = UInt64(parts[1])
            case "manifest": manifest = parts[1]
            default: continue
            }
        }
        guard let format, let generation, manifest == nil || manifest == "manifest-\(generation)" else {
            throw BlobStoreError(
                .corrupt,
                "\(layout.current) is damaged. The store is a cache: move \(layout.root) aside and "
                    + "let BlobStore create a new one.", path: layout.current)
        }
        guard format <= BlobStore.formatVersion else {
            throw BlobStoreError(
                .unsupportedVersion,
                "\(layout.root) was written in store format \(format); this BlobStore reads format "
                    + "\(BlobStore.formatVersion) and older. Upgrade BlobStore, or use another store directory.",
                path: layout.current)
        }
        return CurrentFile(generation: generation, hasManifest: manifest != nil, version: version)
    }
}
