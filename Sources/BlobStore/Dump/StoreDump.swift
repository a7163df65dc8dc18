import Foundation
import Glibc

/// A read-only look at the files of a store's current generation, record by record, for tools
/// and for the tests of crash recovery: the tool `blobstore journal` prints it, as
/// `leveldbutil dump` prints a LevelDB log.
///
/// ``init(storeAt:)`` reads CURRENT, the journal it names (whole) and maps the manifest, if the
/// generation has one (docs/format.md). It opens every file read-only, takes no lock and writes
/// nothing, so it never waits for a running writer and never repairs: a torn tail or damage is
/// reported as it is on disk, where opening the store would truncate or drop it. A writer
/// appending at that moment may show its last record as a torn tail.
///
/// ``forEachRecord(_:)`` hands over the journal's records in order and says how the journal
/// ends; ``forEachManifestEntry(_:)`` hands over the manifest's entries and the damage found.
public struct StoreDump: Sendable {
    /// One of the generation's files as it was read.
    public struct File: Sendable, Equatable {
        /// The file's path.
        public var path: String
        /// Its size in bytes when it was read.
        public var byteCount: Int
        /// The format version its header gives, or `nil` when the header cannot be read.
        public var version: UInt32?
    }

    /// The store's directory, absolute.
    public let path: String
    /// The generation CURRENT names.
    public let generation: UInt64
    /// The generation's journal.
    public let journal: File
    /// The generation's manifest, or `nil` before the first compaction.
    public let manifest: File?

    private let journalBytes: [UInt8]
    private let manifestMapping: FileMapping?
    /// Why the journal's records cannot be read at all (a missing file, a bad header), or `nil`.
    private let journalProblem: String?
    /// The same for the manifest.
    private let manifestProblem: String?

    /// Reads the current generation of the store at `path`.
    ///
    /// When a compaction replaces the generation while it reads, it reads CURRENT again, as
    /// opening the store does.
    ///
    /// - Parameter path: The store's directory.
    /// - Throws: ``BlobStoreError`` with ``BlobStoreError/Code/notFound`` when there is no store
    ///   at `path` (nothing, or an empty directory) and ``BlobStoreError/Code/notAStore`` when it is
    ///   a file or a directory of other files; the errors of reading CURRENT
    ///   (``BlobStoreError/Code/corrupt``, ``BlobStoreError/Code/notAStore``,
    ///   ``BlobStoreError/Code/unsupportedVersion``); and
    ///   ``BlobStoreError/Code/io`` or ``BlobStoreError/Code/permissionDenied`` when a file
    ///   cannot be read.
    public init(storeAt path: String) throws {
        let root = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        let layout = StoreLayout(root: root)
        try Self.checkIsAStore(layout)
        var attempts = 0
        while true {
            let current = try CurrentFile.read(layout)
            attempts += 1
            let (read, missing) = try Self.read(current, layout: layout)
            // A file CURRENT names is gone: a compaction has just replaced the generation, or the
            // store is damaged. Once CURRENT stays the same, the missing file is reported.
            if try !missing || attempts == 5 || CurrentFile.read(layout).generation == current.generation {
                self = read
                return
            }
        }
    }

    /// Throws when there is no store at `layout.root`, as opening the store tells the cases
    /// apart: nothing there, or an empty directory (``BlobStoreError/Code/notFound``), or a file
    /// or a directory of other files (``BlobStoreError/Code/notAStore``).
    private static func checkIsAStore(_ layout: StoreLayout) throws {
        let root = layout.root
        guard let info = try Syscalls.lstat(root) else {
            throw BlobStoreError(.notFound, "There is no store at \(root).", path: root)
        }
        // The store's path may be a symbolic link to its directory; `listDirectory` follows it.
        guard [S_IFDIR, S_IFLNK].contains(info.st_mode & S_IFMT) else {
            throw BlobStoreError(.notAStore, "\(root) is a file, not a store directory.", path: root)
        }
        let names = try Syscalls.listDirectory(root)
        guard !names.contains("CURRENT") else { return }
        if let stranger = names.first(where: { !StoreLayout.isStoreFileName($0) }) {
            throw BlobStoreError(
                .notAStore, "\(root) is not a BlobStore store (it holds \"\(stranger)\").", path: root)
        }
        throw BlobStoreError(.notFound, "There is no store at \(root).", path: root)
    }

    private init(
        path: String, generation: UInt64, journal: (File, [UInt8], problem: String?),
        manifest: (File, FileMapping, problem: String?)?
    ) {
        self.path = path
        self.generation = generation
        self.journal = journal.0
        self.journalBytes = journal.1
        self.journalProblem = journal.problem
        self.manifest = manifest?.0
        self.manifestMapping = manifest?.1
        self.manifestProblem = manifest?.problem
    }

    /// Opens and reads `current`'s files: the manifest first, then the journal, so that both are
    /// of one generation. A missing file is reported as such, and `missing` says there was one.
    private static func read(_ current: CurrentFile, layout: StoreLayout) throws -> (StoreDump, missing: Bool) {
        let generation = current.generation
        var missing = false
        var manifest: (File, FileMapping, problem: String?)? = nil
        if current.hasManifest {
            let path = layout.manifest(generation: generation)
            if let fd = try Syscalls.openIfExists(path, O_RDONLY) {
                defer { Syscalls.close(fd) }
                let mapping = try FileMapping(fd, length: Int(try Syscalls.fstat(fd).st_size))
                let (version, problem) = check(mapping.bytes, magic: ManifestFormat.magic, generation)
                manifest = (File(path: path, byteCount: mapping.bytes.count, version: version), mapping, problem)
            } else {
                missing = true
                let file = File(path: path, byteCount: 0, version: nil)
                manifest = (file, FileMapping(copying: []), "\(path), named by CURRENT, is missing")
            }
        }
        let path = layout.journal(generation: generation)
        let journal: (File, [UInt8], problem: String?)
        if let fd = try Syscalls.openIfExists(path, O_RDONLY) {
            defer { Syscalls.close(fd) }
            let bytes = try LoadedGeneration.readAll(fd, from: 0)
            let (version, problem) = bytes.withUnsafeBytes { check($0, magic: JournalFormat.magic, generation) }
            journal = (File(path: path, byteCount: bytes.count, version: version), bytes, problem)
        } else {
            missing = true
            journal = (File(path: path, byteCount: 0, version: nil), [], "\(path), named by CURRENT, is missing")
        }
        let dump = StoreDump(path: layout.root, generation: generation, journal: journal, manifest: manifest)
        return (dump, missing)
    }

    /// The version in a journal's or manifest's header, and why its records cannot be read, if
    /// they cannot: a header that is cut short, not BlobStore's, of a newer format or of
    /// another generation.
    private static func check(_ bytes: UnsafeRawBufferPointer, magic: [UInt8], _ generation: UInt64)
        -> (version: UInt32?, problem: String?)
    {
        do {
            let header = try JournalHeader(parsing: bytes, magic: magic)
            guard header.generation == generation else {
                return (header.version, "the header says generation \(header.generation), CURRENT says \(generation)")
            }
            return (header.version, nil)
        } catch {
            switch error {
            case .short:
                return (nil, "the file is \(bytes.count) bytes, shorter than its 24-byte header")
            case .notAJournal:
                return (nil, "the header is not a valid BlobStore header (its magic or checksum is wrong)")
            case .newerVersion(let version):
                return (version, "format \(version) is newer than this BlobStore reads (\(JournalFormat.version))")
            }
        }
    }

    // MARK: - Reading

    /// Calls `body` with every valid record of the journal, in order, and says how the journal
    /// ends: cleanly, in a torn tail, or at a damaged record, which stops the reading as it stops
    /// replay (the reader never skips ahead by trusting a length).
    ///
    /// - Parameter body: Called for each record.
    /// - Returns: How the records end.
    public func forEachRecord(_ body: (Record) -> Void) -> JournalEnding {
        if let journalProblem { return .unreadable(reason: journalProblem) }
        let start = JournalFormat.fileHeaderSize
        let scan = journalBytes.withUnsafeBytes { buffer in
            JournalReader.scan(UnsafeRawBufferPointer(rebasing: buffer[start...])) { record, range in
                body(Record(offset: start + range.lowerBound, byteCount: range.count, change: Change(record)))
            }
        }
        let offset = start + scan.validEnd
        switch scan.ending {
        case .clean: return .clean
        case .tornTail(let count): return .tornTail(offset: offset, byteCount: count)
        case .corrupt(let count, let reason): return .damaged(offset: offset, byteCount: count, reason: reason)
        }
    }

    /// Calls `body` with every entry of the manifest that can be read, in the manifest's order
    /// (a format-2 manifest is sorted by the hash of the key), then checks what a format-2
    /// manifest's index and blob blocks say against them, as `verify` does.
    ///
    /// - Parameter body: Called for each entry.
    /// - Returns: The first damage found, or `nil` when the manifest reads whole (also when the
    ///   generation has none).
    public func forEachManifestEntry(_ body: (Entry) -> Void) -> String? {
        guard let manifestMapping, let manifest else { return nil }
        if let manifestProblem { return manifestProblem }
        if manifest.version == 1 {
            let records = UnsafeRawBufferPointer(rebasing: manifestMapping.bytes[JournalFormat.fileHeaderSize...])
            return ManifestReader.read(records) { entry in body(Entry(entry)) }.damage
        }
        let table: ManifestTable
        do {
            table = try ManifestTable(manifestMapping)
        } catch {
            return error.reason
        }
        table.forEachEntry { entry in body(Entry(entry)) }
        return table.check()
    }
}
