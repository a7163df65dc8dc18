import Foundation
import Glibc

// MARK: - Putting values

extension BlobStore {
    /// Stores `data` under `key`, replacing any previous value, and returns its digest.
    ///
    /// Identical content is stored once: when the digest is already in the store, no blob is
    /// written. A value smaller than ``Configuration/packThreshold`` is appended to a pack file;
    /// a larger one gets a file of its own. The put is one journal record, appended before this
    /// returns, so a process crash loses nothing acknowledged; when it is durable against power
    /// loss depends on ``Configuration/durability``.
    ///
    /// - Parameters:
    ///   - data: The value; may be empty.
    ///   - key: Any bytes up to 16 MiB.
    ///   - metadata: Opaque bytes kept with the entry (up to 16 MiB).
    ///   - expires: After this date the entry reads as missing.
    ///   - expected: The digest the caller knows `data` has (from a server's manifest, say):
    ///     when `data` hashes to another, nothing is stored and the put throws
    ///     ``BlobStoreError/Code/digestMismatch``. `nil` checks nothing.
    /// - Returns: The SHA-256 of `data`.
    /// - Throws: ``BlobStoreError`` (`tooLarge`, `digestMismatch`, `noSpace`, `permissionDenied`,
    ///   `poisoned`, …).
    @discardableResult
    public func put(
        _ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        expecting expected: SHA256Digest? = nil
    ) throws -> SHA256Digest {
        try checkLimits(key: key, metadata: metadata)
        try checkCapacity(UInt64(data.count))
        if let parameters = configuration.chunking(forValueSized: data.count),
            let digest = try data.withUnsafeBytes({ bytes in
                try putChunked(bytes, parameters, key: key, metadataSize: metadata.count, expecting: expected) {
                    putRecord(key: key, digest: $0, size: data.count, metadata: metadata, expires: expires)
                }
            })
        {
            return digest
        }
        if data.count < configuration.effectivePackThreshold {
            let digest = SHA256Hasher.hash(data)
            try Self.check(digest, expected: expected, key: key)
            try data.withUnsafeBytes {
                try commitPacked(
                    putRecord(key: key, digest: digest, size: data.count, metadata: metadata, expires: expires), $0)
            }
            return digest
        }
        let digest: SHA256Digest
        var blob: TemporaryBlob? = nil
        if data.count >= OverlappedHashing.threshold {
            // Hashed while written: for content already stored, commit discards the copy.
            let written = try data.withUnsafeBytes { try content.writeTemporaryHashing($0) }
            (digest, blob) = (written.digest, written)
            if let expected, written.digest != expected { content.discard(written) }
            try Self.check(digest, expected: expected, key: key)
        } else {
            digest = SHA256Hasher.hash(data)
            try Self.check(digest, expected: expected, key: key)
            if state.withLock({ $0.index.blob(digest) == nil }) {
                blob = try data.withUnsafeBytes { try content.writeTemporary($0, digest: digest) }
            }
        }
        let record = putRecord(key: key, digest: digest, size: data.count, metadata: metadata, expires: expires)
        do {
            try commit(record, blob: blob)
        } catch CommitRetry.blobVanished {
            let blob = try data.withUnsafeBytes { try content.writeTemporary($0, digest: digest) }
            try commit(record, blob: blob)
        }
        return digest
    }

    /// Throws ``BlobStoreError/Code/digestMismatch`` when `expected` is given and is not `digest`.
    static func check(_ digest: SHA256Digest, expected: SHA256Digest?, key: StoreKey) throws {
        guard let expected, expected != digest else { return }
        throw BlobStoreError(
            .digestMismatch,
            "The value for key '\(key)' hashes to \(digest), not to the expected \(expected); nothing was "
                + "stored. The bytes were changed or cut on their way: fetch them again.")
    }

    /// Stores the contents of a file under `key`, streaming it in 1 MiB pieces (memory use does
    /// not grow with the size), and returns its digest.
    ///
    /// - Parameters:
    ///   - url: A file URL; symbolic links to the source are followed.
    ///   - key: Any bytes up to 16 MiB.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing.
    /// - Returns: The SHA-256 of the file's bytes.
    @discardableResult
    public func put(contentsOf url: URL, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil) throws
        -> SHA256Digest
    {
        try checkLimits(key: key, metadata: metadata)
        let source = try Syscalls.openSource(url.path)
        defer { Syscalls.close(source) }
        return try putStream(source, key: { _ in key }, metadata: metadata, expires: expires)
    }

    /// Creates an empty file in the store's `tmp/` for the package's other modules to write a
    /// value to before it is stored (a download spooled on the store's file system); the caller
    /// removes it. Garbage collection deletes one left behind once its process is gone.
    package func makeSpoolFile() throws -> URL {
        URL(fileURLWithPath: try content.createSpoolFile())
    }

    /// Stores everything readable from `handle` (a pipe, a socket, standard input) under `key`,
    /// streaming it; returns its digest.
    @discardableResult
    public func put(readingFrom handle: FileHandle, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil)
        throws -> SHA256Digest
    {
        try checkLimits(key: key, metadata: metadata)
        let source = FileDescriptor(rawValue: handle.fileDescriptor, path: "input")
        return try putStream(source, key: { _ in key }, metadata: metadata, expires: expires)
    }

    /// Stores `data` by content alone and returns its digest; read it back with ``blob(_:)-90ckb``.
    ///
    /// The blob is kept alive by an entry under the key `sha256:<hex>`, so it is listed, counted
    /// and evicted like any other entry.
    @discardableResult
    public func putBlob(_ data: Data) throws -> SHA256Digest {
        let digest = SHA256Hasher.hash(data)
        return try put(data, for: Self.blobKey(digest))
    }

    /// Stores a file's contents by content alone, streaming it; returns its digest.
    @discardableResult
    public func putBlob(contentsOf url: URL) throws -> SHA256Digest {
        try state.withLock { try checkWritable($0) }
        let source = try Syscalls.openSource(url.path)
        defer { Syscalls.close(source) }
        return try putStream(source, key: Self.blobKey, metadata: Data(), expires: nil)
    }

    /// The key under which ``putBlob(_:)-9xqdk`` keeps a blob alive.
    public static func blobKey(_ digest: SHA256Digest) -> StoreKey {
        StoreKey("sha256:" + digest.hex)
    }

    // MARK: - The write path

    /// One write of this process: holding ``writers`` and the exclusive lock, `body` runs with
    /// the state mutex held, on a store that takes writes, caught up (``prepareAppend(_:)``). A
    /// journal sync that `body` deferred (``finishWrite(_:newBlob:deferringJournalSync:)``, in
    /// ``Durability/always`` mode) runs after it, with the state mutex let go: readers of this
    /// process do not wait for it, and the write returns once it is done.
    func write<R>(_ body: (inout StoreState) throws -> R) throws -> R {
        try holdingWriters {
            try state.withLock { try checkWritable($0) }
            return try exclusively {
                let result = try state.withLock { state in
                    try checkWritable(state)
                    try prepareAppend(&state)
                    return try body(&state)
                }
                try syncDeferredJournal()
                maintainInSteps()
                return result
            }
        }
    }

    /// A write in steps: like ``write(_:)`` (``writers`` and the exclusive lock held, the store
    /// caught up and its tail repaired first, a deferred journal sync run at the end), but `body`
    /// takes the state mutex itself, for each step that needs it. What it does between steps
    /// (hashing a reused blob, syncing a blob's directory before its record is appended) makes
    /// no reader of this process wait; no other writer, of this process or another, can run
    /// meanwhile, so what `body` read under the mutex stays true until it appends.
    func writeInSteps<R>(_ body: () throws -> R) throws -> R {
        try holdingWriters {
            try state.withLock { try checkWritable($0) }
            return try exclusively {
                try state.withLock { state in
                    try checkWritable(state)
                    try prepareAppend(&state)
                }
                let result = try body()
                try syncDeferredJournal()
                maintainInSteps()
                return result
            }
        }
    }

    /// Compacts (``StoreState/compact(layout:configuration:)``) with the state mutex let go
    /// while the next generation is written and synced: readers of this process answer from the
    /// current generation meanwhile, and wait only for the snapshot and the install. Call holding
    /// ``writers`` and the exclusive lock, caught up (in ``writeInSteps(_:)``, or after a write).
    func compactInSteps() throws -> CompactionReport {
        let plan = try state.withLock { state -> CompactionPlan in
            try checkWritable(state)
            let plan = try state.planCompaction(layout: layout)
            state.isCompacting = true
            // The plan's copy of the index shares the policy's queue: reads meanwhile wait aside.
            state.index.deferMarks()
            return plan
        }
        defer {
            state.withLock { state in
                state.isCompacting = false
                state.index.markDeferred()
            }
        }
        let written: CompactionPlan.Written
        do {
            written = try plan.write(layout: layout, configuration: configuration)
        } catch {
            throw state.withLock { $0.settle(error) }
        }
        return try state.withLock { try $0.install(written, of: plan, layout: layout, configuration: configuration) }
    }

    /// Syncs the journal if a write deferred its sync; a failure poisons the handle. Called
    /// holding ``writers`` and the exclusive lock, so that the journal descriptor stays the one
    /// appended to: only a holder of ``writers`` closes it or moves to a new generation.
    func syncDeferredJournal() throws {
        let journal = state.withLock { state -> FileDescriptor? in
            guard state.journalSyncDeferred else { return nil }
            state.journalSyncDeferred = false
            return state.poison == nil && !state.isClosed ? state.journal.descriptor : nil
        }
        guard let journal else { return }
        try syncOrPoison { try Syscalls.fdatasync(journal) }
    }

    // MARK: - Durability

    /// Appends buffered access times and, in ``Durability/batched`` mode, performs the pending
    /// group commit now. In ``Durability/always`` mode everything is already durable; in
    /// ``Durability/none`` nothing is synced.
    ///
    /// Takes the locks in a write's order (this process's writer lock, the store's exclusive
    /// lock, then the state mutex, which is let go while the group commit syncs).
    public func flush() throws {
        try holdingWriters {
            let appendsAccess = try state.withLock { state -> Bool in
                try checkUsable(state)
                if state.readOnly != nil { state.dropPendingAccess() }
                return !state.pendingAccess.isEmpty
            }
            if appendsAccess {
                try exclusively {
                    try state.withLock { state in
                        try checkUsable(state)
                        try prepareAppend(&state)
                        try state.append([])
                    }
                }
            }
            if configuration.durability == .batched { try commitOutsideMutex() }
        }
    }

    /// Flushes and closes the store, and ends the streams of ``events(bufferingPolicy:)``. Further
    /// calls throw ``BlobStoreError/Code/closed``.
    public func close() throws {
        defer { observers.finishAll() }
        try holdingWriters { try closeHoldingWriters() }
    }

    private func closeHoldingWriters() throws {
        try state.withLock { state in
            guard !state.isClosed else { return }
            defer {
                state.isClosed = true
                state.packs.closeAll(keepingUnsynced: &state.unsynced.blobs)
                for fd in state.unsynced.blobs { Syscalls.close(fd) }
                state.unsynced = UnsyncedWrites()
                Syscalls.close(state.journal.descriptor)
                Syscalls.close(lockFile)
                _ = StoreIdentity.openInProcess.withLock { $0.remove(identity) }
            }
            if state.poison == nil {
                try flushLocked(&state)
            }
        }
    }

    // MARK: - Internals

    enum CommitRetry: Error {
        /// The digest was referenced when the put started and its blob is gone now.
        case blobVanished
    }

    /// Checks a put's arguments and that the store takes writes, before any blob is written.
    func checkLimits(key: StoreKey, metadata: Data) throws {
        try state.withLock { try checkWritable($0) }
        guard key.bytes.count <= JournalFormat.maxKeySize else {
            throw BlobStoreError(
                .tooLarge,
                "The key is \(key.bytes.count) bytes; keys are limited to \(JournalFormat.maxKeySize) bytes. "
                    + "Hash long keys first.")
        }
        guard metadata.count <= JournalFormat.maxMetadataSize else {
            throw BlobStoreError(
                .tooLarge,
                "The metadata is \(metadata.count) bytes; metadata is limited to "
                    + "\(JournalFormat.maxMetadataSize) bytes. Store large data as a value.")
        }
    }

    private func putStream(
        _ source: FileDescriptor, key: (SHA256Digest) -> StoreKey, metadata: Data, expires: Date?
    ) throws -> SHA256Digest {
        // A regular file is refused by its size before anything is written; a stream is cut off
        // as soon as it passes the capacity.
        let sourceInfo = try Syscalls.fstat(source)
        if sourceInfo.st_mode & S_IFMT == S_IFREG { try checkCapacity(UInt64(max(0, sourceInfo.st_size))) }
        // A source that ends before the pack threshold is a small value: packed, like put(_:for:).
        let threshold = configuration.effectivePackThreshold
        var prefix = [UInt8](repeating: 0, count: threshold)
        let prefixCount = try prefix.withUnsafeMutableBytes { try Syscalls.readFully(source, into: $0) }
        if prefixCount < threshold {
            prefix.removeSubrange(prefixCount...)
            let digest = SHA256Hasher.hash(prefix)
            try prefix.withUnsafeBytes {
                try commitPacked(
                    putRecord(
                        key: key(digest), digest: digest, size: prefixCount, metadata: metadata, expires: expires),
                    $0)
            }
            return digest
        }
        let blob = try content.writeTemporary(
            streamingFrom: source, after: prefix, limit: state.withLock { $0.limits.capacity }
        ) {
            try checkCapacity($0, soFar: true)
        }
        try commit(
            putRecord(
                key: key(blob.digest), digest: blob.digest, size: blob.size, metadata: metadata, expires: expires),
            blob: blob)
        return blob.digest
    }

    /// The put record for a value of `size` bytes, created now.
    func putRecord(key: StoreKey, digest: SHA256Digest, size: some BinaryInteger, metadata: Data, expires: Date?)
        -> JournalRecord.PutRecord
    {
        JournalRecord.PutRecord(
            key: key, digest: digest, size: UInt64(size), created: Syscalls.nowMilliseconds(),
            expires: expires.map { max(0, $0.milliseconds) }, metadata: Array(metadata))
    }

    /// Links `blob` (if any) and appends the put, under the mutex and the exclusive lock.
    /// Consumes `blob`: it is closed, kept for the group commit, or discarded. A blob large
    /// enough to be chunked is put as chunks instead (``commitChunked(_:from:)``).
    ///
    /// A sound copy already in `blobs/` is reused (checked by size when this process has verified
    /// it before, by hash otherwise); an unsound one is quarantined and `blob` takes its place.
    /// Without `blob` and without a sound copy, throws ``CommitRetry/blobVanished``.
    func commit(_ record: JournalRecord.PutRecord, blob: TemporaryBlob?) throws {
        if let blob, try commitChunked(record, from: blob) { return }
        var unlinked = blob
        var linked: FileDescriptor? = nil
        defer {
            if let unlinked { content.discard(unlinked) }
            if let linked { Syscalls.close(linked) }
        }
        if let blob, configuration.durability == .always {
            try syncOrPoison { try Syscalls.fdatasync(blob.descriptor) }
        }
        try writeInSteps {
            let reference = state.withLock { $0.index.blob(record.digest) }
            // A loose copy checked from scratch (nothing this process knows about it).
            let unverified = StoreIndex.BlobReference(referenceCount: 0, size: record.size)
            // Content no entry refers to is usually not on disk: try the link first, and look
            // at what is there only if the name is taken (garbage not yet collected, damage).
            // Hashing a copy and syncing directories happen with the state mutex let go.
            var reused = false
            var record = record
            if let reference {
                reused = try reuse(reference, in: &record)
            } else if unlinked == nil {
                reused = try isSound(record.digest, unverified)
            }
            if !reused {
                guard let blob = unlinked else { throw CommitRetry.blobVanished }
                var changed = try content.link(blob)
                if changed == nil {
                    reused = try isSound(record.digest, unverified)
                    if !reused {
                        // isSound quarantined what was there.
                        changed = try content.link(blob)
                        guard changed != nil else {
                            throw BlobStoreError(
                                .io, "The blob \(record.digest) reappeared while being replaced; retry the put.")
                        }
                    }
                }
                if let changed {
                    (linked, unlinked) = (blob.descriptor, nil)
                    #if BLOBSTORE_FAULT_INJECTION
                        TestHooks.reach(.putBlobLinked)
                    #endif
                    try syncDirectories(changed)
                }
            }
            try state.withLock { state in
                try checkWritable(state)
                try state.append([.put(record)])
                state.index.markVerified(record.digest)
                let handedOver = linked
                linked = nil
                try finishWrite(&state, newBlob: handedOver, deferringJournalSync: true)
                maintainAfterWrite(&state, protecting: record.key)
            }
        }
    }

    /// Catches up with other processes and repairs the journal's tail; a store of format 1 is
    /// converted (compacted into format 2) before anything is appended to it. Exclusive lock held.
    ///
    /// When nobody else took the exclusive lock since this process last let it go caught up
    /// (``ChangeCounter/isQuiet``), nothing can have changed and the catch-up's system calls are
    /// skipped.
    func prepareAppend(_ state: inout StoreState) throws {
        if changes?.isQuiet != true { try state.catchUp(layout: layout) }
        do {
            try state.repair(layout: layout, configuration: configuration)
            if state.journal.version < JournalFormat.version {
                _ = try state.compact(layout: layout, configuration: configuration)
            }
        } catch let error as BlobStoreError {
            // A repair that failed half-way (a truncate or sync) leaves nothing to build on.
            throw state.poisoned(by: error)
        }
        changes?.markCaughtUp()
    }

    /// In ``Durability/always`` mode, syncs new directory entries before the record is written.
    func syncDirectories(_ directories: [String], _ state: inout StoreState) throws {
        switch configuration.durability {
        case .always:
            try syncOrPoison(&state) {
                for directory in directories { try Syscalls.fsyncDirectory(directory) }
            }
        case .batched:
            state.unsynced.directories.formUnion(directories)
        case .none:
            break
        }
    }

    /// ``syncDirectories(_:_:)`` with the state mutex let go: it is taken only to queue the
    /// directories for the group commit or to poison the handle.
    func syncDirectories(_ directories: [String]) throws {
        switch configuration.durability {
        case .always:
            try syncOrPoison {
                for directory in directories { try Syscalls.fsyncDirectory(directory) }
            }
        case .batched:
            state.withLock { $0.unsynced.directories.formUnion(directories) }
        case .none:
            break
        }
    }

    /// After an append: sync now (`always`; or, with `deferringJournalSync`, once the caller
    /// has let the state mutex go: ``write(_:)``), queue for the group commit (`batched`), or
    /// just close the new blob (`none`).
    func finishWrite(_ state: inout StoreState, newBlob: FileDescriptor?, deferringJournalSync: Bool = false) throws {
        switch configuration.durability {
        case .always:
            if let newBlob { Syscalls.close(newBlob) }
            if deferringJournalSync {
                state.journalSyncDeferred = true
            } else {
                let journal = state.journal.descriptor
                try syncOrPoison(&state) { try Syscalls.fdatasync(journal) }
            }
            state.unsynced.journal = false
        case .batched:
            if let newBlob { state.unsynced.blobs.append(newBlob) }
            if state.unsynced.blobs.count >= 256 {
                try groupCommitLocked(&state)
            } else {
                scheduleGroupCommit(&state)
            }
        case .none:
            if let newBlob { Syscalls.close(newBlob) }
            state.unsynced.journal = false
        }
    }

    private func scheduleGroupCommit(_ state: inout StoreState) {
        guard !state.commitScheduled, !state.unsynced.isEmpty else { return }
        state.commitScheduled = true
        let nanoseconds = Int(configuration.batchInterval.clampedNanoseconds)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.runScheduledCommit()
        }
    }

    /// The group commit on its timer (``commitOutsideMutex()``); a failure has poisoned the
    /// handle, and the next operation reports it.
    private func runScheduledCommit() {
        writers.withLock { _ in
            state.withLock { $0.commitScheduled = false }
            try? commitOutsideMutex()
        }
    }

    /// The group commit with the state mutex let go: the work is taken under it and synced
    /// after, holding ``writers`` (no write of this process runs meanwhile), so that readers
    /// never wait for it. The journal and the pack are synced through duplicates of their
    /// descriptors: another process may compact meanwhile, and this process's next catch-up then
    /// closes the originals. A failure poisons the handle.
    func commitOutsideMutex() throws {
        let taken = state.withLock { state -> (UnsyncedWrites, journal: FileDescriptor?, pack: FileDescriptor?)? in
            guard !state.isClosed, state.poison == nil, !state.unsynced.isEmpty else { return nil }
            let work = state.unsynced
            state.unsynced = UnsyncedWrites()
            let journal = work.journal ? try? Syscalls.duplicate(state.journal.descriptor) : nil
            let pack = work.packWriter ? state.packs.writer.flatMap { try? Syscalls.duplicate($0.descriptor) } : nil
            return (work, journal, pack)
        }
        guard let (work, journal, pack) = taken else { return }
        defer {
            for fd in work.blobs { Syscalls.close(fd) }
            if let journal { Syscalls.close(journal) }
            if let pack { Syscalls.close(pack) }
        }
        try syncOrPoison {
            guard work.journal == (journal != nil), work.packWriter == (pack != nil) else {
                throw BlobStoreError(.io, "The group commit could not duplicate a descriptor to sync.", path: path)
            }
            try Self.syncGroup(work, journal: journal, pack: pack)
        }
    }

    /// One sync for everything written since the last commit, under the state mutex (an
    /// eviction round or a repack, which delete files once the commit is durable).
    func groupCommitLocked(_ state: inout StoreState) throws {
        let work = state.unsynced
        state.unsynced = UnsyncedWrites()
        defer { for fd in work.blobs { Syscalls.close(fd) } }
        let journal = work.journal ? state.journal.descriptor : nil
        let pack = work.packWriter ? state.packs.writer?.descriptor : nil
        try syncOrPoison(&state) { try Self.syncGroup(work, journal: journal, pack: pack) }
    }

    /// The group commit's syncs, in order: the blobs and the pack (writeback started for all
    /// first), the directories, then the journal, so that no durable record refers to a blob
    /// that is not.
    private static func syncGroup(_ work: UnsyncedWrites, journal: FileDescriptor?, pack: FileDescriptor?) throws {
        for fd in work.blobs { Syscalls.startWriteback(fd) }
        if let pack { Syscalls.startWriteback(pack) }
        for fd in work.blobs { try Syscalls.fdatasync(fd) }
        if let pack { try Syscalls.fdatasync(pack) }
        for directory in work.directories { try Syscalls.fsyncDirectory(directory) }
        if let journal { try Syscalls.fdatasync(journal) }
    }

    /// For ``close()-1fv3b``, holding ``writers`` and the state mutex: appends buffered access times
    /// if the exclusive lock is free, then (in ``Durability/batched`` mode) runs the pending group
    /// commit.
    func flushLocked(_ state: inout StoreState) throws {
        if state.readOnly != nil || state.poison != nil {
            state.dropPendingAccess()
            return
        }
        if !state.pendingAccess.isEmpty { appendAccessHints(&state, holdingWriters: true) }
        if configuration.durability == .batched {
            try groupCommitLocked(&state)
        }
    }

    /// Appends buffered access times if the exclusive lock is free right now. They are hints: a
    /// read never waits for another process's lock or fails because of them, and they are never
    /// synced on their own. Past four batches waiting for the lock, they are dropped.
    ///
    /// Called with the state mutex held: ``writers`` is only tried (a write of this process in
    /// progress means the lock is not free), unless the caller holds it already.
    func appendAccessHints(_ state: inout StoreState, holdingWriters: Bool = false) {
        guard state.readOnly == nil, state.poison == nil else { return }
        func appendIfFree(_ state: inout StoreState) -> Bool {
            (try? Self.withLockIfFree(lockFile, LOCK_EX, bumping: changes) { () throws -> Bool in
                try prepareAppend(&state)
                try state.append([])
                return true
            }) == true
        }
        let appended =
            holdingWriters ? appendIfFree(&state) : (writers.withLockIfAvailable { _ in appendIfFree(&state) } ?? false)
        if !appended && state.pendingAccess.count > 4 * configuration.accessBatchSize {
            state.dropPendingAccess()
        }
    }

    /// Throws if the store cannot take writes: closed, poisoned or read-only.
    func checkWritable(_ state: StoreState) throws {
        try checkUsable(state)
        if let reason = state.readOnly { throw reason }
    }

    /// Throws if the store is closed or poisoned.
    func checkUsable(_ state: StoreState) throws {
        if state.isClosed {
            throw BlobStoreError(.closed, "The store at \(path) is closed. Open it again to use it.", path: path)
        }
        if let poison = state.poison {
            throw BlobStoreError(
                .poisoned,
                "An earlier sync failed in the store at \(path) (\(poison.message)); this handle acknowledges "
                    + "nothing more. Close it and open the store again.", path: path)
        }
    }

    /// Runs a sync (or a step that must not stop half-way); a failure poisons the handle.
    func syncOrPoison(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as BlobStoreError {
            throw state.withLock { $0.poisoned(by: error) }
        }
    }

    /// ``syncOrPoison(_:)`` for a caller that holds the state mutex.
    func syncOrPoison(_ state: inout StoreState, _ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as BlobStoreError {
            throw state.poisoned(by: error)
        }
    }
}
