import Foundation
import Glibc
import Synchronization

/// A content-addressed blob store with a journal: keys map to SHA-256 digests, each distinct
/// content is stored once under `blobs/`, and every change is one framed record appended to the
/// journal.
///
/// Open one instance per store per process and share it: it is `Sendable`, every method is
/// thread-safe, and a second open of the same directory in one process throws
/// ``BlobStoreError/Code/busy``. Other processes may have the same store open; each operation
/// first catches up with what they appended.
///
/// ```swift
/// let store = try BlobStore(at: "/var/cache/myapp")
/// let digest = try store.put(Data("hello".utf8), for: "https://example.com/hello")
/// let bytes = try store.value(for: "https://example.com/hello")  // verified against digest
/// ```
public final class BlobStore: Sendable {
    /// The store directory (absolute).
    public let path: String
    public let configuration: Configuration
    let layout: StoreLayout
    let content: ContentStore
    let lockFile: FileDescriptor
    let identity: StoreIdentity
    let state: Mutex<StoreState>

    /// The current on-disk format, written in CURRENT.
    static let formatVersion = 1

    /// Opens the store at `path`, creating it if the directory is missing or empty.
    ///
    /// Opening replays the journal into memory; it never walks the blob directories. A torn last
    /// record (a crash mid-append) is truncated; a damaged record stops replay there and is
    /// reported in ``recoveryReport``.
    ///
    /// - Parameters:
    ///   - path: The store directory. Parent directories are created as needed.
    ///   - configuration: Durability, verification and locking settings.
    /// - Throws: ``BlobStoreError`` with code `notAStore` for a non-empty directory that is not a
    ///   store, `unsupportedVersion` for a newer format, `corrupt` for a journal whose header is
    ///   not a BlobStore journal, `unsafeLayout` for a symbolic link inside the store,
    ///   `permissionDenied`, or `busy` if the store is already open in this process.
    public init(at path: String, configuration: Configuration = Configuration()) throws {
        let layout = StoreLayout(root: Self.absolute(path))
        self.path = layout.root
        self.configuration = configuration
        self.layout = layout
        self.content = ContentStore(
            layout: layout, fileMode: configuration.fileMode, directoryMode: configuration.directoryMode)
        let rootInfo = try Self.prepareDirectory(layout, configuration: configuration)
        let identity = StoreIdentity(rootInfo)
        let inserted = StoreIdentity.openInProcess.withLock { $0.insert(identity).inserted }
        guard inserted else {
            throw BlobStoreError(
                .busy,
                "The store at \(layout.root) is already open in this process. Share that BlobStore "
                    + "instance instead of opening it again.", path: layout.root)
        }
        self.identity = identity
        var lockFile: FileDescriptor?
        do {
            let lock = try Self.openLockFile(layout, configuration: configuration)
            lockFile = lock
            if try Syscalls.lstat(layout.current) == nil {
                try Self.withLock(lock, LOCK_EX, timeout: configuration.lockTimeout) {
                    try Self.initialize(layout, configuration: configuration)
                }
            }
            try Self.checkLayout(layout, configuration: configuration)
            let initial = try Self.recover(layout, lock: lock, configuration: configuration)
            self.lockFile = lock
            self.state = Mutex(initial)
        } catch {
            if let lockFile { Syscalls.close(lockFile) }
            _ = StoreIdentity.openInProcess.withLock { $0.remove(identity) }
            throw error
        }
    }

    /// Opens the store at a file URL. See ``init(at:configuration:)``.
    public convenience init(at url: URL, configuration: Configuration = Configuration()) throws {
        try self.init(at: url.path, configuration: configuration)
    }

    deinit {
        try? close()
    }

    /// What opening the store found in the journal: records replayed, a torn tail truncated,
    /// damage dropped.
    public var recoveryReport: RecoveryReport {
        state.withLock { $0.recovery }
    }

    // MARK: - Opening

    private static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        let cwd = FileManager.default.currentDirectoryPath
        return path.isEmpty || path == "." ? cwd : cwd + "/" + path
    }

    /// Creates the directory (and parents) if needed and refuses a non-empty directory that is
    /// not a store.
    private static func prepareDirectory(_ layout: StoreLayout, configuration: Configuration) throws -> stat {
        var missing: [String] = []
        var probe = layout.root
        while try Syscalls.lstat(probe) == nil, probe != "/" {
            missing.append(probe)
            probe = (probe as NSString).deletingLastPathComponent
        }
        if !missing.isEmpty && !configuration.createIfMissing {
            throw BlobStoreError(
                .notFound, "There is no store at \(layout.root). Check the path, or put a value to create it.",
                path: layout.root)
        }
        for directory in missing.reversed() {
            try Syscalls.mkdir(directory, mode: configuration.directoryMode)
        }
        // The store path itself may be a symbolic link (say, ~/.cache on another disk): the
        // caller chose it. Inside the store, nothing is followed.
        let rootFD: FileDescriptor
        do {
            rootFD = try Syscalls.openSource(layout.root, O_DIRECTORY)
        } catch let error as BlobStoreError where error.errno == ENOTDIR {
            throw BlobStoreError(
                .notAStore, "\(layout.root) is a file, not a directory. Choose a directory for the store.",
                path: layout.root)
        }
        defer { Syscalls.close(rootFD) }
        let info = try Syscalls.fstat(rootFD)
        let names = try Syscalls.listDirectory(layout.root)
        if names.contains("CURRENT") {
            _ = try readCurrent(layout)  // refuses another program's CURRENT before anything is created
        } else if let stranger = names.first(where: { !StoreLayout.isStoreFileName($0) }) {
            throw BlobStoreError(
                .notAStore,
                "\(layout.root) is not empty and is not a BlobStore store (it holds \"\(stranger)\"). "
                    + "Choose an empty or new directory for the store.", path: layout.root)
        } else if !configuration.createIfMissing {
            throw BlobStoreError(
                .notFound, "There is no store at \(layout.root). Check the path, or put a value to create it.",
                path: layout.root)
        }
        return info
    }

    /// Writes a new, empty store: directories, CACHEDIR.TAG, journal-1, then CURRENT last.
    private static func initialize(_ layout: StoreLayout, configuration: Configuration) throws {
        guard try Syscalls.lstat(layout.current) == nil else { return }
        for name in try Syscalls.listDirectory(layout.root) where StoreLayout.isAtomicWriteLeftover(name) {
            try Syscalls.unlink(layout.root + "/" + name)
        }
        for directory in [layout.blobsRoot, layout.blobsSHA256, layout.tmp] {
            try Syscalls.mkdir(directory, mode: configuration.directoryMode)
        }
        try writeFileAtomically(
            layout.cacheDirTag, Array(StoreLayout.cacheDirTagContent.utf8), directory: layout.root,
            mode: configuration.fileMode)
        let journal = try Syscalls.open(
            layout.journal(generation: 1), O_WRONLY | O_CREAT | O_TRUNC, mode: configuration.fileMode)
        defer { Syscalls.close(journal) }
        try JournalHeader(generation: 1).encoded.withUnsafeBytes { try Syscalls.writeFully(journal, $0) }
        try Syscalls.fsync(journal)
        try writeFileAtomically(
            layout.current, Array(currentFileContent(generation: 1).utf8), directory: layout.root,
            mode: configuration.fileMode)
    }

    static func currentFileContent(generation: UInt64) -> String {
        "blobstore-format \(formatVersion)\ngeneration \(generation)\n"
    }

    /// temp + fsync + rename + directory fsync.
    static func writeFileAtomically(_ path: String, _ bytes: [UInt8], directory: String, mode: mode_t) throws {
        let temporary = path + "." + String(Syscalls.random64(), radix: 16)
        let fd = try Syscalls.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        do {
            try bytes.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
            try Syscalls.fsync(fd)
            Syscalls.close(fd)
            try Syscalls.rename(temporary, path)
        } catch {
            Syscalls.close(fd)
            _ = try? Syscalls.unlink(temporary)
            throw error
        }
        try Syscalls.fsyncDirectory(directory)
    }

    /// Refuses symbolic links (or other file types) where the store expects its directories,
    /// and recreates a missing `tmp/` or `blobs/`.
    private static func checkLayout(_ layout: StoreLayout, configuration: Configuration) throws {
        for directory in [layout.blobsRoot, layout.blobsSHA256, layout.tmp] {
            guard let info = try Syscalls.lstat(directory) else {
                try Syscalls.mkdir(directory, mode: configuration.directoryMode)
                continue
            }
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw BlobStoreError(
                    .unsafeLayout,
                    "\(directory) is not a plain directory (a symbolic link or a file); the store refuses "
                        + "to follow it. Remove it; BlobStore recreates the directory.", path: directory)
            }
        }
    }

    /// Reads CURRENT: `blobstore-format N` and `generation G`. Also returns CURRENT's inode:
    /// CURRENT is only ever replaced by `rename(2)`, so a new inode means a new generation.
    static func readCurrent(_ layout: StoreLayout) throws -> (generation: UInt64, inode: UInt64) {
        let fd = try Syscalls.open(layout.current, O_RDONLY)
        defer { Syscalls.close(fd) }
        let inode = UInt64(try Syscalls.fstat(fd).st_ino)
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
        for line in lines {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            if parts[0] == "blobstore-format" { format = Int(parts[1]) }
            if parts[0] == "generation" { generation = UInt64(parts[1]) }
        }
        guard let format, let generation else {
            throw BlobStoreError(
                .corrupt,
                "\(layout.current) is damaged. The store is a cache: move \(layout.root) aside and "
                    + "let BlobStore create a new one.", path: layout.current)
        }
        guard format <= formatVersion else {
            throw BlobStoreError(
                .unsupportedVersion,
                "\(layout.root) was written in store format \(format); this BlobStore reads format "
                    + "\(formatVersion) and older. Upgrade BlobStore, or use another store directory.",
                path: layout.current)
        }
        return (generation, inode)
    }

    /// Replays the current journal into a fresh state, repairing its tail under the exclusive
    /// lock when it did not end cleanly.
    static func recover(_ layout: StoreLayout, lock: FileDescriptor, configuration: Configuration) throws -> StoreState
    {
        var readOnly: BlobStoreError? = nil
        let loaded: LoadedJournal
        do {
            loaded = try loadCurrentJournal(layout, flags: O_RDWR | O_APPEND)
        } catch let error as BlobStoreError where error.code == .permissionDenied {
            readOnly = error
            loaded = try loadCurrentJournal(layout, flags: O_RDONLY)
        }
        var state = StoreState(
            generation: loaded.generation, currentInode: loaded.currentInode, journal: loaded.journal,
            journalEnd: Int64(JournalFormat.fileHeaderSize))
        let scan = state.replay(loaded.bytes, from: JournalFormat.fileHeaderSize)
        state.recovery.recordsReplayed = scan.recordCount
        state.readOnly = readOnly
        if scan.ending != .clean, readOnly == nil {
            do {
                try withLock(lock, LOCK_EX, timeout: configuration.lockTimeout) {
                    try state.catchUp(layout: layout)
                    try state.repairTail(layout: layout, configuration: configuration)
                }
            } catch {
                Syscalls.close(state.journal)
                throw error
            }
        }
        return state
    }

    /// The journal CURRENT names, open, with all its bytes and a checked header.
    struct LoadedJournal {
        var generation: UInt64
        var currentInode: UInt64
        var journal: FileDescriptor
        var bytes: [UInt8]
    }

    /// Opens the journal CURRENT names, reads it whole and checks its header: a BlobStore
    /// journal, of a version this code reads, of CURRENT's generation. Closes it on failure.
    static func loadCurrentJournal(_ layout: StoreLayout, flags: CInt) throws -> LoadedJournal {
        let (current, journal) = try openCurrentJournal(layout, flags: flags)
        let path = journal.path
        do {
            let bytes = try readAll(journal, from: 0)
            let header: JournalHeader
            do {
                header = try bytes.withUnsafeBytes { try JournalHeader(parsing: $0) }
            } catch let problem as JournalHeader.Problem {
                throw journalHeaderError(problem, path: path, layout: layout)
            }
            guard header.generation == current.generation else {
                throw BlobStoreError(
                    .corrupt,
                    "\(path) says generation \(header.generation) but CURRENT says \(current.generation). Move "
                        + "\(layout.root) aside and let BlobStore create a new one.", path: path)
            }
            return LoadedJournal(
                generation: current.generation, currentInode: current.inode, journal: journal, bytes: bytes)
        } catch {
            Syscalls.close(journal)
            throw error
        }
    }

    private static func journalHeaderError(
        _ problem: JournalHeader.Problem, path: String, layout: StoreLayout
    ) -> BlobStoreError {
        if case .newerVersion(let version) = problem {
            return BlobStoreError(
                .unsupportedVersion,
                "\(path) is journal format \(version); this BlobStore reads format \(JournalFormat.version) "
                    + "and older. Upgrade BlobStore, or use another store directory.", path: path)
        }
        return BlobStoreError(
            .corrupt,
            "\(path) does not start with a valid BlobStore journal header. The store is a cache: "
                + "move \(layout.root) aside and let BlobStore create a new one.", path: path)
    }

    /// Reads CURRENT and opens the journal it names. If that journal is gone, another process
    /// has just rotated to a new generation: CURRENT is read again (a few times) before the
    /// store is declared damaged.
    static func openCurrentJournal(_ layout: StoreLayout, flags: CInt) throws -> (
        current: (generation: UInt64, inode: UInt64), journal: FileDescriptor
    ) {
        var attempts = 0
        while true {
            let current = try readCurrent(layout)
            let path = layout.journal(generation: current.generation)
            if let journal = try Syscalls.openIfExists(path, flags) { return (current, journal) }
            attempts += 1
            if try attempts == 5 || readCurrent(layout).generation == current.generation {
                throw BlobStoreError(
                    .corrupt,
                    "\(path), named by CURRENT, is missing. The store is a cache: move \(layout.root) aside "
                        + "and let BlobStore create a new one.", path: path)
            }
        }
    }

    /// Reads a file from `offset` to its current end.
    static func readAll(_ fd: FileDescriptor, from offset: Int64) throws -> [UInt8] {
        let size = Int64(try Syscalls.fstat(fd).st_size)
        guard size > offset else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(size - offset))
        let count = try bytes.withUnsafeMutableBytes { try Syscalls.preadFully(fd, into: $0, at: offset) }
        if count < bytes.count { bytes.removeLast(bytes.count - count) }
        return bytes
    }

    // MARK: - The process-shared lock

    /// Opens (creating if needed) LOCK; read-only when the store cannot be written, since
    /// `flock(2)` works on any descriptor.
    private static func openLockFile(_ layout: StoreLayout, configuration: Configuration) throws -> FileDescriptor {
        do {
            return try Syscalls.open(layout.lock, O_RDWR | O_CREAT, mode: configuration.fileMode)
        } catch let error as BlobStoreError where error.code == .permissionDenied {
            return try Syscalls.open(layout.lock, O_RDONLY)
        }
    }

    /// Runs `body` holding `flock(operation)` on LOCK, waiting up to `timeout` for it.
    static func withLock<R>(
        _ lock: FileDescriptor, _ operation: CInt, timeout: Duration, _ body: () throws -> R
    ) throws -> R {
        let start = Syscalls.monotonicNanoseconds()
        let limit = timeout.clampedNanoseconds
        var pause: UInt32 = 100
        while !(try Syscalls.tryFlock(lock, operation)) {
            if Syscalls.monotonicNanoseconds() - start > limit {
                throw BlobStoreError(
                    .busy,
                    "Another process has held \(lock.path) for more than \(timeout) (a compaction or gc "
                        + "in progress?). Retry later, or raise the lock timeout.", path: lock.path)
            }
            Syscalls.sleep(microseconds: pause)
            pause = min(pause * 2, 10_000)
        }
        defer { Syscalls.unlock(lock) }
        return try body()
    }

    /// Runs `body` holding `flock(operation)` on LOCK if no other process holds it; returns `nil`
    /// without running `body` otherwise.
    static func withLockIfFree<R>(_ lock: FileDescriptor, _ operation: CInt, _ body: () throws -> R) throws -> R? {
        guard try Syscalls.tryFlock(lock, operation) else { return nil }
        defer { Syscalls.unlock(lock) }
        return try body()
    }

    /// Runs `body` holding the exclusive lock: every journal append happens inside, after a
    /// catch-up, so that appends from several processes never interleave with a torn tail.
    func exclusively<R>(_ body: () throws -> R) throws -> R {
        try Self.withLock(lockFile, LOCK_EX, timeout: configuration.lockTimeout, body)
    }
}
