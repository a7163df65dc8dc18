import Glibc

/// The generation CURRENT names, read whole: its journal (open, for appending when the store
/// is writable) and its manifest, if it has one, with checked headers.
struct LoadedGeneration {
    var current: CurrentFile
    var journal: FileDescriptor
    /// The journal's bytes, header included.
    var journalBytes: [UInt8]
    /// The manifest, mapped, header included; `nil` when the generation has no manifest.
    var manifest: FileMapping?
    /// The journal's format version (a store written before packs existed has 1).
    var version: UInt32

    /// Reads CURRENT, opens the files it names and reads them. If they are gone, another
    /// process has just compacted: CURRENT is read again (a few times) before the store is
    /// declared damaged. Closes what it opened on failure.
    static func load(_ layout: StoreLayout, flags: CInt) throws -> LoadedGeneration {
        var attempts = 0
        while true {
            let current = try CurrentFile.read(layout)
            if let loaded = try load(current, layout: layout, flags: flags) { return loaded }
            attempts += 1
            if try attempts == 5 || CurrentFile.read(layout).generation == current.generation {
                let missing =
                    current.hasManifest
                    ? layout.manifest(generation: current.generation) + " or "
                        + layout.journal(generation: current.generation)
                    : layout.journal(generation: current.generation)
                throw BlobStoreError(
                    .corrupt,
                    "\(missing), named by CURRENT, is missing. The store is a cache: move \(layout.root) aside "
                        + "and let BlobStore create a new one.", path: layout.current)
            }
        }
    }

    /// Opens and reads `current`'s files; `nil` when one of them does not exist.
    private static func load(_ current: CurrentFile, layout: StoreLayout, flags: CInt) throws -> LoadedGeneration? {
        var mapping: FileMapping? = nil
        if current.hasManifest {
            guard let manifest = try Syscalls.openIfExists(layout.manifest(generation: current.generation), O_RDONLY)
            else { return nil }
            defer { Syscalls.close(manifest) }
            // Mapped, not read: a format-2 manifest is read in place (ManifestTable).
            let found = try FileMapping(manifest, length: Int(try Syscalls.fstat(manifest).st_size))
            // A damaged manifest header is damage (repaired from the rest); a newer one is refused.
            do {
                _ = try JournalHeader(parsing: found.bytes, magic: ManifestFormat.magic)
            } catch JournalHeader.Problem.newerVersion {
                try checkHeader(
                    found.bytes, magic: ManifestFormat.magic, current: current, path: manifest.path, layout: layout)
            } catch {}
            mapping = found
        }
        guard let journal = try Syscalls.openIfExists(layout.journal(generation: current.generation), flags) else {
            return nil
        }
        do {
            let bytes = try readAll(journal, from: 0)
            let header = try bytes.withUnsafeBytes {
                try checkHeader($0, magic: JournalFormat.magic, current: current, path: journal.path, layout: layout)
            }
            return LoadedGeneration(
                current: current, journal: journal, journalBytes: bytes, manifest: mapping, version: header.version)
        } catch {
            Syscalls.close(journal)
            throw error
        }
    }

    /// Checks a journal's header: a BlobStore journal, of a version this code reads, of CURRENT's
    /// generation.
    @discardableResult
    private static func checkHeader(
        _ bytes: UnsafeRawBufferPointer, magic: [UInt8], current: CurrentFile, path: String, layout: StoreLayout
    ) throws -> JournalHeader {
        let header: JournalHeader
        do {
            header = try JournalHeader(parsing: bytes, magic: magic)
        } catch JournalHeader.Problem.newerVersion(let version) {
            throw BlobStoreError(
                .unsupportedVersion,
                "\(path) is format \(version); this BlobStore reads format \(JournalFormat.version) "
                    + "and older. Upgrade BlobStore, or use another store directory.", path: path)
        } catch {
            throw BlobStoreError(
                .corrupt,
                "\(path) does not start with a valid BlobStore header. The store is a cache: "
                    + "move \(layout.root) aside and let BlobStore create a new one.", path: path)
        }
        guard header.generation == current.generation else {
            throw BlobStoreError(
                .corrupt,
                "\(path) says generation \(header.generation) but CURRENT says \(current.generation). Move "
                    + "\(layout.root) aside and let BlobStore create a new one.", path: path)
        }
        return header
    }

    /// Reads a file from `offset` to its current end.
    static func readAll(_ fd: FileDescriptor, from offset: Int64) throws -> [UInt8] {
        let size = Int64(try Syscalls.fstat(fd).st_size)
        guard size > offset else { return [] }
        // Not zero-filled first: pread overwrites what it reads, and only that is kept.
        return try [UInt8](unsafeUninitializedCapacity: Int(size - offset)) { buffer, initialized in
            initialized = try Syscalls.preadFully(fd, into: UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
    }
}
