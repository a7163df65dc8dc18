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
    /// LOCK's shared change counter, bumped whenever the exclusive lock is taken or let go.
    let changes: ChangeCounter?
    /// LOCK's shared hit, miss and eviction counts (``StoreStats/allProcesses``).
    let usage: SharedUsage?
    /// The subscribers of ``events(bufferingPolicy:)``.
    let observers = StoreObservers()
    let identity: StoreIdentity
    let state: Mutex<StoreState>
    /// Held by every thread of this process that takes (or may take) the exclusive lock, for the
    /// whole hold, and by a group commit while it syncs: `flock` locks belong to the open file,
    /// so they keep other processes out but not this process's other threads. Always taken
    /// before ``state``, never while holding it (but for a try that does not wait), so that a
    /// writer can let ``state`` go while it syncs (docs/design.md, "Threads").
    let writers = Mutex(())

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
    /// A store directory that belongs to another user opens read-only (writes throw
    /// `permissionDenied`), unless ``Configuration/directoryMode`` shares it with a group.
    ///
    /// - Throws: ``BlobStoreError`` with code `notAStore` for a non-empty directory that is not a
    ///   store, `unsupportedVersion` for a newer format, `corrupt` for a journal whose header is
    ///   not a BlobStore journal, `unsafeLayout` for a symbolic link inside the store or a store
    ///   directory or file that other users may write, `permissionDenied` (also for a new store
    ///   in another user's directory), or `busy` if the store is already open in this process.
    public init(at path: String, configuration: Configuration = Configuration()) throws {
        let layout = StoreLayout(root: Self.absolute(path))
        self.path = layout.root
        self.configuration = configuration
        self.layout = layout
        self.content = ContentStore(
            layout: layout, fileMode: configuration.fileMode, directoryMode: configuration.directoryMode)
        let rootInfo = try Self.prepareDirectory(layout, configuration: configuration)
        try StoreLayout.refuseWritableByOthers(layout.root, rootInfo, allowed: configuration.directoryMode)
        let foreignOwner = Self.foreignOwner(layout, rootInfo, configuration: configuration)
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
            if foreignOwner != nil, try Syscalls.lstat(layout.current) == nil {
                throw BlobStoreError(
                    .permissionDenied,
                    "\(layout.root) belongs to another user (uid \(rootInfo.st_uid)); BlobStore does not create a "
                        + "store in it. Choose a directory of your own.", path: layout.root)
            }
            let lock = try Self.openLockFile(layout, configuration: configuration, readOnly: foreignOwner != nil)
            lockFile = lock
            let writableLock = try Self.isWritable(lock)
            let changes = ChangeCounter(lock: lock, writable: writableLock)
            if writableLock && changes == nil {
                // Writers rely on every holder of the exclusive lock bumping the counter
                // (ChangeCounter.isQuiet): one that cannot would hide its changes from them.
                throw BlobStoreError(
                    .io,
                    "\(layout.lock) could not be mapped into memory (out of memory or address space?); "
                        + "the store cannot be written safely without it. Retry, or free memory.", path: layout.lock)
            }
            if try Syscalls.lstat(layout.current) == nil {
                try Self.withLock(lock, LOCK_EX, timeout: configuration.lockTimeout, bumping: changes) {
                    try Self.initialize(layout, configuration: configuration)
                }
            }
            try Self.checkLayout(layout, configuration: configuration, creating: foreignOwner == nil)
            var initial = try Self.recover(
                layout, lock: lock, changes: changes, configuration: configuration, readOnly: foreignOwner)
            do {
                initial.limits = try Self.resolveLimits(
                    layout, lock: lock, changes: changes, configuration: configuration,
                    writable: initial.readOnly == nil)
            } catch {
                Syscalls.close(initial.journal.descriptor)
                throw error
            }
            self.lockFile = lock
            self.changes = changes
            self.usage = SharedUsage(lock: lock, writable: writableLock)
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
        state.withLock { $0.recoveryReport }
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
            // Otherwise a power loss could take the new directory, and the store in it, away.
            try Syscalls.fsyncDirectory((directory as NSString).deletingLastPathComponent)
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
            _ = try CurrentFile.read(layout)  // refuses another program's CURRENT before anything is created
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
        for directory in [layout.blobsRoot, layout.blobsSHA256, layout.tmp, layout.packsDirectory] {
            try Syscalls.mkdir(directory, mode: configuration.directoryMode)
        }
        // `blobs/sha256` is an entry of `blobs/`; the root's entries are synced with the tag below.
        try Syscalls.fsyncDirectory(layout.blobsRoot)
        try writeFileAtomically(
            layout.cacheDirTag, Array(StoreLayout.cacheDirTagContent.utf8), directory: layout.root,
            mode: configuration.fileMode)
        let journal = try Syscalls.open(
            layout.journal(generation: 1), O_WRONLY | O_CREAT | O_TRUNC, mode: configuration.fileMode)
        defer { Syscalls.close(journal) }
        try JournalHeader(generation: 1).encoded.withUnsafeBytes { try Syscalls.writeFully(journal, $0) }
        try Syscalls.fsync(journal)
        try writeFileAtomically(
            layout.current, Array(CurrentFile(generation: 1, hasManifest: false).content.utf8), directory: layout.root,
            mode: configuration.fileMode)
    }

    /// temp + fsync + rename + directory fsync.
    ///
    /// A hint (`synced: false`, the eviction policy's snapshot) is not synced: after a power loss
    /// it may be cut short or empty, which its reader detects (a checksum), and no sync of it can
    /// fail and poison the handle.
    static func writeFileAtomically(
        _ path: String, _ bytes: [UInt8], directory: String, mode: mode_t, synced: Bool = true
    ) throws {
        let temporary = path + "." + String(Syscalls.random64(), radix: 16)
        let fd = try Syscalls.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
        var isOpen = true
        do {
            try bytes.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
            if synced { try Syscalls.fsync(fd) }
            Syscalls.close(fd)
            isOpen = false
            try Syscalls.rename(temporary, path)
        } catch {
            if isOpen { Syscalls.close(fd) }
            _ = try? Syscalls.unlink(temporary)
            throw error
        }
        if synced { try Syscalls.fsyncDirectory(directory) }
    }

    /// Refuses symbolic links (or other file types) where the store expects its directories
    /// (`blobs/`, `blobs/sha256/`, `tmp/`, `packs/`, `quarantine/`), and those directories and the
    /// files at the top of the store when other users may write them (beyond what the
    /// configuration grants). With `creating`, recreates a missing `tmp/`, `packs/` or `blobs/`
    /// (a store of format 1 has no `packs/`). Shard directories are
    /// checked when they are first used (``StoreLayout/checkedBlobPath(_:)``).
    private static func checkLayout(_ layout: StoreLayout, configuration: Configuration, creating: Bool) throws {
        for directory in [layout.blobsRoot, layout.blobsSHA256, layout.tmp, layout.packsDirectory] {
            if let info = try layout.checkFixedDirectory(directory) {
                try StoreLayout.refuseWritableByOthers(directory, info, allowed: configuration.directoryMode)
            } else if creating {
                try Syscalls.mkdir(directory, mode: configuration.directoryMode)
            }
        }
        if let info = try layout.checkQuarantine() {
            try StoreLayout.refuseWritableByOthers(layout.quarantine, info, allowed: configuration.directoryMode)
        }
        for name in try Syscalls.listDirectory(layout.root)
        where StoreLayout.isStoreFileName(name) && !StoreLayout.isAtomicWriteLeftover(name) {
            let path = layout.root + "/" + name
            guard let info = try Syscalls.lstat(path), info.st_mode & S_IFMT == S_IFREG else { continue }
            try StoreLayout.refuseWritableByOthers(path, info, allowed: configuration.fileMode)
        }
    }

    /// Why this process must not write the store: its directory belongs to another user. `nil`
    /// when it is this process's own, or when ``Configuration/directoryMode`` grants the group
    /// write permission (a store shared with a group on purpose, whose owner is one of its
    /// members). Root is no exception: files it wrote into another user's store would be root's.
    private static func foreignOwner(_ layout: StoreLayout, _ info: stat, configuration: Configuration)
        -> BlobStoreError?
    {
        let user = Syscalls.effectiveUserID
        guard info.st_uid != user, configuration.directoryMode & S_IWGRP == 0 else { return nil }
        return BlobStoreError(
            .permissionDenied,
            "The store at \(layout.root) belongs to another user (uid \(info.st_uid); this process runs as uid "
                + "\(user)), so it is open for reading only: nothing is written into a directory another user "
                + "controls, nor left there for that user to trip over. Run the command as the owner "
                + "(sudo -u '#\(info.st_uid)' …), take the store over with 'chown -R', or share it with a group on "
                + "purpose (Configuration.directoryMode 0o770).", path: layout.root)
    }

    /// Loads the current generation (manifest and journal) into a fresh state, repairing the
    /// journal's tail or a damaged manifest under the exclusive lock.
    ///
    /// - Parameter readOnly: Why the store must not be written (it belongs to another user), or
    ///   `nil` to open it for writing when the journal can be.
    static func recover(
        _ layout: StoreLayout, lock: FileDescriptor, changes: ChangeCounter?, configuration: Configuration,
        readOnly reason: BlobStoreError?
    ) throws -> StoreState {
        var readOnly = reason
        let loaded: LoadedGeneration
        do {
            loaded = try LoadedGeneration.load(layout, flags: readOnly == nil ? O_RDWR | O_APPEND : O_RDONLY)
        } catch let error as BlobStoreError where error.code == .permissionDenied && readOnly == nil {
            readOnly = BlobStoreError(
                .permissionDenied,
                "The store at \(layout.root) is read-only for this process: opening \(error.path ?? "its journal") "
                    + "for writing was refused. Reads work; to write, make the store writable by this user, "
                    + "or open another store.",
                path: layout.root, errno: error.errno)
            loaded = try LoadedGeneration.load(layout, flags: O_RDONLY)
        }
        var state = StoreState(loaded)
        state.readOnly = readOnly
        if state.needsRepair, readOnly == nil {
            do {
                try withLock(lock, LOCK_EX, timeout: configuration.lockTimeout, bumping: changes) {
                    try state.catchUp(layout: layout)
                    try state.repair(layout: layout, configuration: configuration)
                }
            } catch {
                Syscalls.close(state.journal.descriptor)
                throw error
            }
        }
        return state
    }

    /// The limits to apply: the configured ones (recorded in the store when they differ from
    /// what it holds), else the recorded ones, else none.
    private static func resolveLimits(
        _ layout: StoreLayout, lock: FileDescriptor, changes: ChangeCounter?, configuration: Configuration,
        writable: Bool
    ) throws -> EvictionLimits {
        let recorded = recordedLimits(layout)
        guard let configured = configuration.limits.map(LimitsFile.normalized) else {
            return recorded ?? EvictionLimits()
        }
        if let problem = LimitsFile.validationProblem(configured) {
            throw BlobStoreError(.invalidArgument, problem)
        }
        if configured != recorded && writable {
            try withLock(lock, LOCK_EX, timeout: configuration.lockTimeout, bumping: changes) {
                try writeFileAtomically(
                    layout.limits, Array(LimitsFile.encode(configured).utf8), directory: layout.root,
                    mode: configuration.fileMode)
            }
        }
        return configured
    }

    // MARK: - The process-shared lock

    /// Opens (creating if needed) LOCK; read-only when the store cannot or must not be written,
    /// since `flock(2)` works on any descriptor.
    private static func openLockFile(_ layout: StoreLayout, configuration: Configuration, readOnly: Bool) throws
        -> FileDescriptor
    {
        if readOnly { return try Syscalls.open(layout.lock, O_RDONLY) }
        do {
            return try Syscalls.open(layout.lock, O_RDWR | O_CREAT, mode: configuration.fileMode)
        } catch let error as BlobStoreError where error.code == .permissionDenied {
            return try Syscalls.open(layout.lock, O_RDONLY)
        }
    }

    /// Whether LOCK was opened for writing (a read-only store's is not).
    private static func isWritable(_ lock: FileDescriptor) throws -> Bool {
        try Syscalls.accessMode(lock) != O_RDONLY
    }

    /// Runs `body` holding `flock(operation)` on LOCK, waiting up to `timeout` for it. Taking and
    /// releasing an exclusive lock bump `changes`, so readers in other processes catch up and
    /// writers know whether anyone else held it (``ChangeCounter/isQuiet``).
    static func withLock<R>(
        _ lock: FileDescriptor, _ operation: CInt, timeout: Duration, bumping changes: ChangeCounter?,
        _ body: () throws -> R
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
        if operation == LOCK_EX { changes?.acquired() }
        defer {
            if operation == LOCK_EX { changes?.releasing() }
            Syscalls.unlock(lock)
        }
        return try body()
    }

    /// Runs `body` holding `flock(operation)` on LOCK if no other process holds it; returns `nil`
    /// without running `body` otherwise.
    static func withLockIfFree<R>(
        _ lock: FileDescriptor, _ operation: CInt, bumping changes: ChangeCounter?, _ body: () throws -> R
    ) throws -> R? {
        guard try Syscalls.tryFlock(lock, operation) else { return nil }
        if operation == LOCK_EX { changes?.acquired() }
        defer {
            if operation == LOCK_EX { changes?.releasing() }
            Syscalls.unlock(lock)
        }
        return try body()
    }

    /// Runs `body` holding ``writers``.
    func holdingWriters<R>(_ body: () throws -> R) throws -> R {
        var result: Result<R, any Error>?
        writers.withLock { _ in result = Result { try body() } }
        return try result!.get()
    }

    /// Runs `body` holding the exclusive lock: every journal append happens inside, after a
    /// catch-up, so that appends from several processes never interleave with a torn tail. The
    /// caller holds ``writers``.
    func exclusively<R>(_ body: () throws -> R) throws -> R {
        try Self.withLock(lockFile, LOCK_EX, timeout: configuration.lockTimeout, bumping: changes, body)
    }
}
