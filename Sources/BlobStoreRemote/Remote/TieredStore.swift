import BlobStore
import Foundation
import Synchronization

/// A local `BlobStore` as the first tier in front of a shared remote cache, with ccache's
/// semantics:
///
/// - a local hit makes no remote traffic;
/// - a local miss asks the remote; a remote hit is fetched, **rehashed**, stored locally and
///   returned (a blob that does not match its digest is a miss and is not stored);
/// - a double miss is a miss: `value(for:orInsert:metadata:expires:)` then produces the value
///   (once per key in this process), stores it locally and uploads it (unless
///   ``RemoteConfiguration/readOnly``).
///
/// The remote never makes an operation fail: an error or a timeout is counted in ``stats``,
/// the operation goes on locally, and the remote is skipped for ``RemoteConfiguration/coolDown``.
/// Errors of the local store are thrown as usual.
///
/// It is a `BlobStorage`, so the typed objects and the HTTP cache of `BlobStoreHTTP` run on it.
public final class TieredStore: BlobStorage {
    /// The first tier.
    public let local: BlobStore
    /// The shared tier.
    public let remote: any RemoteBackend
    /// Read-only, remote-only, cool-down and size limit.
    public let configuration: RemoteConfiguration
    private let state = Mutex(State())

    private struct State {
        var stats = RemoteStats()
        /// Counters not yet added to the store's `remote-stats` file.
        var unsaved = RemoteStats()
        var coolingDownUntil: ContinuousClock.Instant?
        var lastError: BlobStoreError?
        /// Blobs the remote answered with bytes that failed verification: uploaded without `HEAD`.
        var poisoned: Set<SHA256Digest> = []
    }

    /// - Parameters:
    ///   - local: The local store; with ``RemoteConfiguration/remoteOnly`` it is neither read
    ///     nor written, and only keeps the `remote-stats` file.
    ///   - remote: The shared tier.
    ///   - configuration: Read-only, remote-only, cool-down and size limit.
    public init(local: BlobStore, remote: any RemoteBackend, configuration: RemoteConfiguration = RemoteConfiguration())
    {
        self.local = local
        self.remote = remote
        self.configuration = configuration
    }

    /// This process's remote counters.
    public var stats: RemoteStats { state.withLock { $0.stats } }

    /// The last remote error, for a warning; `nil` when there was none.
    public var lastError: BlobStoreError? { state.withLock { $0.lastError } }

    /// Whether the remote is being skipped after an error.
    public var isCoolingDown: Bool {
        state.withLock { state in state.coolingDownUntil.map { ContinuousClock.now < $0 } ?? false }
    }

    // MARK: - Reading

    /// The entry stored under `key`, locally (`StoredEntry.Tier.disk`) or in the remote
    /// (`StoredEntry.Tier.remote`); `nil` when neither has it.
    ///
    /// A remote hit is verified against its digest and size, then stored locally with its
    /// metadata and expiry (unless ``RemoteConfiguration/remoteOnly``).
    ///
    /// - Throws: `BlobStoreError` from the local store only.
    public func entry(for key: StoreKey) throws -> StoredEntry? {
        if !configuration.remoteOnly, let stored = try local.entry(for: key) { return stored }
        guard let (data, record) = fetch(key) else { return nil }
        let found = StoredEntry(info: record.info(for: key), value: data, tier: .remote)
        guard !configuration.remoteOnly else { return found }
        do {
            try local.put(data, for: key, metadata: record.metadata, expires: record.expires, expecting: record.digest)
        } catch let error as BlobStoreError where error.code == .tooLarge {
            // Larger than the local capacity: the verified bytes are still the answer.
        }
        return found
    }

    /// What the local store knows of `key`, else what the remote's record for it says (without
    /// fetching the blob); `nil` when neither has an unexpired entry.
    ///
    /// - Throws: `BlobStoreError` from the local store only.
    public func info(for key: StoreKey) throws -> EntryInfo? {
        if !configuration.remoteOnly, let info = try local.info(for: key) { return info }
        return attempt { try remoteRecord(for: key) }??.info(for: key)
    }

    /// Whether `key` is stored locally, or the remote has a valid record for it whose blob it
    /// still holds. Downloads nothing.
    ///
    /// - Throws: `BlobStoreError` from the local store only.
    public func contains(_ key: StoreKey) throws -> Bool {
        if !configuration.remoteOnly, try local.contains(key) { return true }
        return attempt { () -> Bool in
            guard let record = try remoteRecord(for: key) else { return false }
            return try remote.containsBlob(record.digest)
        } ?? false
    }

    // MARK: - Writing

    /// Stores `data` under `key` locally (unless ``RemoteConfiguration/remoteOnly``) and uploads
    /// it (unless ``RemoteConfiguration/readOnly``): the blob only when the remote does not hold
    /// it already, then the record.
    ///
    /// - Returns: The SHA-256 of `data`.
    /// - Throws: `BlobStoreError` from the local store only.
    ///
    /// With `StoragePlacement.memoryOnly` nothing is kept: neither tier is memory, and the key's
    /// local entry and remote record are removed so that no older value outlives the new one.
    @discardableResult
    public func put(
        _ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        placement: StoragePlacement = .memoryAndDisk
    ) throws -> SHA256Digest {
        guard placement == .memoryAndDisk else {
            try remove(key)
            return SHA256Hasher.hash(data)
        }
        let digest =
            configuration.remoteOnly
            ? SHA256Hasher.hash(data)
            : try local.put(data, for: key, metadata: metadata, expires: expires, expecting: nil)
        let record = RemoteRecord(
            digest: digest, size: UInt64(data.count), created: Date(), expires: expires, metadata: metadata)
        upload(data, record: record, for: key)
        return digest
    }

    /// Uploads the entry `key` already has in the local store (one written by a streaming
    /// `put(contentsOf:)`, say). Values over ``RemoteConfiguration/maximumValueSize`` or the
    /// backend's ``RemoteBackend/maximumValueSize`` stay local.
    ///
    /// - Returns: Whether the remote now has the blob and the record.
    /// - Throws: `BlobStoreError` from the local store only.
    @discardableResult
    public func upload(_ key: StoreKey) throws -> Bool {
        guard !configuration.readOnly, let info = try local.info(for: key),
            info.size <= UInt64(maximumValueSize),
            let handle = try local.fileHandle(forBlob: info.digest)
        else { return false }
        defer { try? handle.close() }
        let data = try handle.readToEnd() ?? Data()
        guard data.count == info.size else { return false }
        let record = RemoteRecord(
            digest: info.digest, size: info.size, created: info.created, expires: info.expires, metadata: info.metadata)
        return upload(data, record: record, for: key)
    }

    /// Removes `key` locally and, unless ``RemoteConfiguration/readOnly``, its record in the
    /// remote, so that no machine gets it from there any more. Blobs stay: the remote's eviction
    /// collects them.
    ///
    /// - Returns: Whether the key was stored locally (with ``RemoteConfiguration/remoteOnly``,
    ///   whether the remote had a record for it).
    /// - Throws: `BlobStoreError` from the local store only.
    @discardableResult
    public func remove(_ key: StoreKey) throws -> Bool {
        let removedLocally = configuration.remoteOnly ? false : try local.remove(key)
        guard !configuration.readOnly else { return removedLocally }
        let keyDigest = SHA256Hasher.hash(key.bytes)
        let hadRecord = attempt { () -> Bool in
            let existed =
                configuration.remoteOnly
                ? try remote.record(keyDigest, maximumSize: RemoteRecord.maximumEncodedSize) != nil : false
            try remote.removeRecord(keyDigest)
            return existed
        }
        return removedLocally || (hadRecord ?? false)
    }

    /// Replaces the metadata and expiry of `key`'s entry locally and, unless
    /// ``RemoteConfiguration/readOnly``, of its remote record, keeping the value: no blob is read
    /// or written. Returns whether either tier had the entry.
    ///
    /// - Throws: `BlobStoreError` from the local store only.
    @discardableResult
    public func update(_ key: StoreKey, metadata: Data, expires: Date?) throws -> Bool {
        let updatedLocally =
            configuration.remoteOnly ? false : try local.update(key, metadata: metadata, expires: expires)
        guard !configuration.readOnly else { return updatedLocally }
        let updatedRemotely = attempt { () -> Bool in
            guard var record = try remoteRecord(for: key) else { return false }
            record.metadata = metadata
            record.expires = expires
            let encoded = record.encoded()
            try remote.putRecord(encoded, keyDigest: SHA256Hasher.hash(key.bytes))
            count { $0.bytesUp += UInt64(encoded.count) }
            return true
        }
        return updatedLocally || (updatedRemotely ?? false)
    }

    /// Removes every local entry and, unless ``RemoteConfiguration/readOnly``, the remote
    /// records of the keys they were under; returns how many local entries went. The remote is
    /// shared: records other machines wrote under other keys stay, for its eviction. With
    /// ``RemoteConfiguration/remoteOnly`` nothing is local, and nothing is removed.
    ///
    /// - Throws: `BlobStoreError` from the local store only.
    @discardableResult
    public func removeAll() throws -> Int {
        guard !configuration.remoteOnly else { return 0 }
        let keys = try local.entries().map(\.key)
        let removed = try local.removeAll()
        guard !configuration.readOnly else { return removed }
        for key in keys {
            guard attempt({ try remote.removeRecord(SHA256Hasher.hash(key.bytes)) }) != nil else { break }
        }
        return removed
    }

    /// Adds this process's counters to the store's `remote-stats` file, so that `blobstore stats`
    /// shows them. Call it before closing the local store; it is cheap to call again.
    ///
    /// - Throws: `BlobStoreError` when the file cannot be written.
    public func saveStats() throws {
        let unsaved = state.withLock { state in
            defer { state.unsaved = RemoteStats() }
            return state.unsaved
        }
        guard unsaved != RemoteStats() else { return }
        do {
            try RemoteStatsFile.add(unsaved, to: local)
        } catch {
            state.withLock { $0.unsaved = $0.unsaved + unsaved }
            throw error
        }
    }

    // MARK: - The remote

    /// The largest value uploaded or downloaded: the configuration's limit or the backend's,
    /// whichever is smaller.
    private var maximumValueSize: Int { min(configuration.maximumValueSize, remote.maximumValueSize) }

    /// Fetches `key`'s record and blob and verifies them; counts a hit or a miss.
    private func fetch(_ key: StoreKey) -> (Data, RemoteRecord)? {
        let outcome = attempt { () -> (Data, RemoteRecord)? in
            guard let record = try remoteRecord(for: key), record.size <= UInt64(maximumValueSize) else {
                return nil
            }
            let fetched: Data?
            do {
                fetched = try remote.blob(record.digest, maximumSize: Int(record.size))
            } catch let error as BlobStoreError where error.code == .tooLarge {
                // Longer than its record says: wrong bytes, not a failing server.
                rejected(record.digest)
                return nil
            }
            guard let data = fetched else {
                count { $0.danglingRecords += 1 }
                return nil
            }
            count { $0.bytesDown += UInt64(data.count) }
            guard data.count == record.size, SHA256Hasher.hash(data) == record.digest else {
                rejected(record.digest)
                return nil
            }
            return (data, record)
        }
        let found = outcome ?? nil  // nil: a miss, or the remote failed
        count { if found == nil { $0.misses += 1 } else { $0.hits += 1 } }
        return found
    }

    /// The valid, unexpired record for `key`, or `nil`.
    private func remoteRecord(for key: StoreKey) throws -> RemoteRecord? {
        let keyDigest = SHA256Hasher.hash(key.bytes)
        guard let encoded = try remote.record(keyDigest, maximumSize: RemoteRecord.maximumEncodedSize) else {
            return nil
        }
        count { $0.bytesDown += UInt64(encoded.count) }
        guard let record = RemoteRecord.decode(encoded), !record.isExpired() else { return nil }
        return record
    }

    /// Uploads the blob unless the remote has it, then the record.
    @discardableResult
    private func upload(_ data: Data, record: RemoteRecord, for key: StoreKey) -> Bool {
        guard !configuration.readOnly, data.count <= maximumValueSize else { return false }
        let done = attempt { () -> Bool in
            // A blob the remote answered with wrong bytes is overwritten, not trusted by HEAD.
            let poisoned = state.withLock { $0.poisoned.contains(record.digest) }
            if !poisoned, try remote.containsBlob(record.digest) {
                count { $0.skippedUploads += 1 }
            } else {
                try remote.putBlob(data, digest: record.digest)
                count {
                    $0.uploads += 1
                    $0.bytesUp += UInt64(data.count)
                }
                if poisoned { _ = state.withLock { $0.poisoned.remove(record.digest) } }
            }
            let encoded = record.encoded()
            try remote.putRecord(encoded, keyDigest: SHA256Hasher.hash(key.bytes))
            count { $0.bytesUp += UInt64(encoded.count) }
            return true
        }
        return done ?? false
    }

    /// Runs `body` against the remote unless it is cooling down; an error yields `nil` and,
    /// unless a cool-down is already running (another operation failed meanwhile), is counted
    /// and starts one.
    private func attempt<R>(_ body: () throws -> R) -> R? {
        let available = state.withLock { state -> Bool in
            guard let until = state.coolingDownUntil, ContinuousClock.now < until else { return true }
            state.stats.coolDownSkips += 1
            state.unsaved.coolDownSkips += 1
            return false
        }
        guard available else { return nil }
        do {
            return try body()
        } catch {
            let remoteError =
                error as? BlobStoreError ?? BlobStoreError.remote(remote.name, "\(error)")
            state.withLock { state in
                // Operations that were already under way when another one started the
                // cool-down fail too: one failure, counted and armed once.
                if let until = state.coolingDownUntil, ContinuousClock.now < until { return }
                state.stats.errors += 1
                state.unsaved.errors += 1
                state.coolingDownUntil = ContinuousClock.now + configuration.coolDown
                state.lastError = remoteError
            }
            return nil
        }
    }

    /// Counts a blob the remote answered with wrong bytes, and remembers its digest so that the
    /// next upload of the right bytes replaces it (at most 1024 digests; past that, one is dropped).
    private func rejected(_ digest: SHA256Digest) {
        state.withLock { state in
            state.stats.verificationFailures += 1
            state.unsaved.verificationFailures += 1
            if state.poisoned.count >= 1024, let any = state.poisoned.first { state.poisoned.remove(any) }
            state.poisoned.insert(digest)
        }
    }

    /// Applies `change` to this process's counters and to the unsaved ones.
    private func count(_ change: (inout RemoteStats) -> Void) {
        state.withLock { state in
            change(&state.stats)
            change(&state.unsaved)
        }
    }
}
