import Foundation

// MARK: - async forms: the same operations, run off the caller's thread

extension BlobStorage {
    /// `async` ``entry(for:)``. A cancelled task stops waiting and throws
    /// `CancellationError`.
    public func entry(for key: StoreKey) async throws -> StoredEntry? {
        try await offload(.stopWaiting) { try self.entry(for: key) }
    }

    /// `async` ``value(for:)-4hc2q``. A cancelled task stops waiting and throws
    /// `CancellationError`.
    public func value(for key: StoreKey) async throws -> Data? {
        try await offload(.stopWaiting) { try self.entry(for: key)?.value }
    }

    /// `async` ``info(for:)-9b7ny``. A cancelled task stops waiting and throws
    /// `CancellationError`.
    public func info(for key: StoreKey) async throws -> EntryInfo? {
        try await offload(.stopWaiting) { try self.info(for: key) }
    }

    /// `async` ``contains(_:)-8s4dt``. A cancelled task stops waiting and throws
    /// `CancellationError`.
    public func contains(_ key: StoreKey) async throws -> Bool {
        try await offload(.stopWaiting) { try self.contains(key) }
    }

    /// `async` ``put(_:for:metadata:expires:placement:)-3mmxr``. A task cancelled before the
    /// write starts throws `CancellationError`; a started write runs to its end.
    @discardableResult
    public func put(_ data: Data, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement)
        async throws -> SHA256Digest
    {
        try await offload { try self.put(data, for: key, metadata: metadata, expires: expires, placement: placement) }
    }

    /// `async` ``put(_:for:metadata:expires:)-8ecn7``: every tier; cancelled as a put is.
    @discardableResult
    public func put(_ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil) async throws
        -> SHA256Digest
    {
        try await put(data, for: key, metadata: metadata, expires: expires, placement: .memoryAndDisk)
    }

    /// `async` ``update(_:metadata:expires:)-6ndvd``; cancelled as a put is.
    @discardableResult
    public func update(_ key: StoreKey, metadata: Data, expires: Date?) async throws -> Bool {
        try await offload { try self.update(key, metadata: metadata, expires: expires) }
    }

    /// `async` ``remove(_:)-7lbte``; cancelled as a put is.
    @discardableResult
    public func remove(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.remove(key) }
    }

    /// `async` ``removeAll()-4p6qa``; cancelled as a put is.
    @discardableResult
    public func removeAll() async throws -> Int {
        try await offload { try self.removeAll() }
    }
}
