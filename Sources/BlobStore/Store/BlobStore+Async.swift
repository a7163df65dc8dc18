import Foundation

// MARK: - async variants: the same operations, run off the caller's thread

extension BlobStore {
    /// `async` ``put(_:for:metadata:expires:expecting:)-4lzjp``.
    @discardableResult
    public func put(
        _ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        expecting expected: SHA256Digest? = nil
    ) async throws -> SHA256Digest {
        try await offload { try self.put(data, for: key, metadata: metadata, expires: expires, expecting: expected) }
    }

    /// `async` ``put(contentsOf:for:metadata:expires:)-1i79u``.
    @discardableResult
    public func put(contentsOf url: URL, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil)
        async throws -> SHA256Digest
    {
        try await offload { try self.put(contentsOf: url, for: key, metadata: metadata, expires: expires) }
    }

    /// `async` ``put(readingFrom:for:metadata:expires:)-34b7y``; cancelled as a put is.
    @discardableResult
    public func put(readingFrom handle: FileHandle, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil)
        async throws -> SHA256Digest
    {
        try await offload { try self.put(readingFrom: handle, for: key, metadata: metadata, expires: expires) }
    }

    /// `async` ``putBlob(_:)-9xqdk``; cancelled as a put is.
    @discardableResult
    public func putBlob(_ data: Data) async throws -> SHA256Digest {
        try await offload { try self.putBlob(data) }
    }

    /// `async` ``putBlob(contentsOf:)-1621s``; cancelled as a put is.
    @discardableResult
    public func putBlob(contentsOf url: URL) async throws -> SHA256Digest {
        try await offload { try self.putBlob(contentsOf: url) }
    }

    /// `async` ``touch(_:)-9byp3``; cancelled as a put is.
    @discardableResult
    public func touch(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.touch(key) }
    }

    /// `async` ``recordLimits(_:)-3iqde``; cancelled as a put is.
    public func recordLimits(_ limits: EvictionLimits) async throws {
        try await offload { try self.recordLimits(limits) }
    }

    /// `async` ``close()-1fv3b``: the last group commit runs off the caller's thread. A task cancelled
    /// before it starts throws `CancellationError` and leaves the store open.
    public func close() async throws {
        try await offload { try self.close() }
    }

    /// `async` ``fileURL(for:)-7zi9u``.
    public func fileURL(for key: StoreKey) async throws -> URL? {
        try await offload(.stopWaiting) { try self.fileURL(for: key) }
    }

    /// `async` ``fileHandle(for:)-4ol5e``.
    public func fileHandle(for key: StoreKey) async throws -> FileHandle? {
        try await offload(.stopWaiting) { try self.fileHandle(for: key) }
    }

    /// `async` ``value(for:in:)-9qrnw``.
    public func value(for key: StoreKey, in range: Range<Int>) async throws -> Data? {
        try await offload(.stopWaiting) { try self.value(for: key, in: range) }
    }

    /// `async` ``blob(_:)-90ckb``.
    public func blob(_ digest: SHA256Digest) async throws -> Data? {
        try await offload(.stopWaiting) { try self.blob(digest) }
    }

    /// `async` ``fileHandle(forBlob:)-3lign``.
    public func fileHandle(forBlob digest: SHA256Digest) async throws -> FileHandle? {
        try await offload(.stopWaiting) { try self.fileHandle(forBlob: digest) }
    }

    /// `async` ``flush()-9tl4s``.
    public func flush() async throws {
        try await offload { try self.flush() }
    }

    /// `async` ``entries()-kdr3``.
    public func entries() async throws -> [EntryInfo] {
        try await offload(.stopWaiting) { try self.entries() }
    }

    /// `async` ``stats()-6aleh``.
    public func stats() async throws -> StoreStats {
        try await offload(.stopWaiting) { try self.stats() }
    }

    /// `async` ``chunkStats()-9n9mv``.
    public func chunkStats() async throws -> ChunkStats {
        try await offload(.stopWaiting) { try self.chunkStats() }
    }

    /// `async` ``removeAll(where:)-283kj``, with a predicate that may run on another thread.
    @discardableResult
    public func removeAll(where shouldRemove: @escaping @Sendable (EntryInfo) throws -> Bool) async throws -> Int {
        try await offload { try self.removeAll(where: shouldRemove) }
    }

    /// `async` ``removeAll(withKeyPrefix:)-6rqq2``.
    @discardableResult
    public func removeAll(withKeyPrefix prefix: StoreKey) async throws -> Int {
        try await offload { try self.removeAll(withKeyPrefix: prefix) }
    }

    /// `async` ``removeAll(accessedBefore:)-5rn76``.
    @discardableResult
    public func removeAll(accessedBefore date: Date) async throws -> Int {
        try await offload { try self.removeAll(accessedBefore: date) }
    }

    /// `async` ``compact()-5jgno``.
    @discardableResult
    public func compact() async throws -> CompactionReport {
        try await offload { try self.compact() }
    }

    /// `async` ``collectGarbage(limits:gracePeriod:dryRun:progress:)-3kjas``.
    @discardableResult
    public func collectGarbage(
        limits: EvictionLimits? = nil, gracePeriod: Duration? = nil, dryRun: Bool = false,
        progress: (@Sendable (MaintenanceProgress) -> Void)? = nil
    ) async throws -> GarbageCollectionReport {
        try await offload {
            try self.collectGarbage(limits: limits, gracePeriod: gracePeriod, dryRun: dryRun, progress: progress)
        }
    }
}
