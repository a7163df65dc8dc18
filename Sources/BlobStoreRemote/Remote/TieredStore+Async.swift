import BlobStore
import Foundation

// MARK: - async variants: the same operations, run off the caller's thread

extension TieredStore {
    /// Runs `body` on a global dispatch queue so an `async` caller's thread never blocks on the
    /// disk or the network.
    private func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try body() })
            }
        }
    }

    /// `async` ``value(for:)``.
    public func value(for key: StoreKey) async throws -> Data? {
        try await offload { try self.value(for: key) }
    }

    /// `async` ``value(for:metadata:expires:producing:)``: on a double miss, awaits `produce`,
    /// then stores and uploads its value.
    public func value(
        for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        producing produce: @Sendable () async throws -> Data
    ) async throws -> Data {
        if let data = try await value(for: key) { return data }
        let data = try await produce()
        try await put(data, for: key, metadata: metadata, expires: expires)
        return data
    }

    /// `async` ``put(_:for:metadata:expires:)``.
    @discardableResult
    public func put(_ data: Data, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil) async throws
        -> SHA256Digest
    {
        try await offload { try self.put(data, for: key, metadata: metadata, expires: expires) }
    }

    /// `async` ``contains(_:)``.
    public func contains(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.contains(key) }
    }

    /// `async` ``upload(_:)``.
    @discardableResult
    public func upload(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.upload(key) }
    }
}
