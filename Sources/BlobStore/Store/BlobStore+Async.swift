import Foundation

// MARK: - async variants: the same operations, run off the caller's thread

extension BlobStore {
    /// Runs `body` on a global dispatch queue so an `async` caller's thread never blocks on I/O.
    private func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

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

    /// `async` ``value(for:)-5c9av``.
    public func value(for key: StoreKey) async throws -> Data? {
        try await offload { try self.value(for: key) }
    }

    /// `async` ``fileURL(for:)-7zi9u``.
    public func fileURL(for key: StoreKey) async throws -> URL? {
        try await offload { try self.fileURL(for: key) }
    }

    /// `async` ``fileHandle(for:)-4ol5e``.
    public func fileHandle(for key: StoreKey) async throws -> FileHandle? {
        try await offload { try self.fileHandle(for: key) }
    }

    /// `async` ``blob(_:)-90ckb``.
    public func blob(_ digest: SHA256Digest) async throws -> Data? {
        try await offload { try self.blob(digest) }
    }

    /// `async` ``fileHandle(forBlob:)-3lign``.
    public func fileHandle(forBlob digest: SHA256Digest) async throws -> FileHandle? {
        try await offload { try self.fileHandle(forBlob: digest) }
    }

    /// `async` ``remove(_:)-9mnpa``.
    @discardableResult
    public func remove(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.remove(key) }
    }

    /// `async` ``flush()-9tl4s``.
    public func flush() async throws {
        try await offload { try self.flush() }
    }
}
