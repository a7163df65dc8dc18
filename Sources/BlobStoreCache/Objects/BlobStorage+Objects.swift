import BlobStore
import Foundation

// MARK: - Typed objects

extension BlobStorage {
    /// Encodes `object` with `coder` and stores it under `key`, like a raw value: with the same
    /// metadata, expiry, placement and deduplication (equal objects encode to equal bytes).
    ///
    /// - Parameters:
    ///   - object: Any `Encodable` value.
    ///   - key: The key.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing.
    ///   - placement: Every tier (the default) or memory only.
    ///   - coder: The format. Default: ``JSONObjectCoder``.
    /// - Returns: The SHA-256 of the encoded bytes.
    /// - Throws: `BlobStoreError` with code `unencodable` when the coder refuses the value, or
    ///   from the storage.
    @discardableResult
    public func put<T: Encodable>(
        object: T, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        placement: StoragePlacement = .memoryAndDisk, coder: any ObjectCoder = JSONObjectCoder()
    ) throws -> SHA256Digest {
        let data = try ObjectCoding.encode(object, with: coder)
        return try put(data, for: key, metadata: metadata, expires: expires, placement: placement)
    }

    /// The object stored under `key`, decoded as a `T` with `coder`; `nil` as for
    /// `entry(for:)`.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The key it was stored under.
    ///   - coder: The format it was stored in. Default: ``JSONObjectCoder``.
    /// - Throws: `BlobStoreError` with code `undecodable` when the stored bytes are not a `T`
    ///   in this format (the entry is left as it is), or from the storage.
    public func object<T: Decodable>(_ type: T.Type, for key: StoreKey, coder: any ObjectCoder = JSONObjectCoder())
        throws -> T?
    {
        guard let entry = try entry(for: key) else { return nil }
        return try ObjectCoding.decode(type, from: entry.value, key: key, with: coder)
    }

    /// `async` `BlobStorage.put(object:for:metadata:expires:placement:coder:)`; cancelled as a put is.
    @discardableResult
    public func put<T: Encodable>(
        object: T, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        placement: StoragePlacement = .memoryAndDisk, coder: any ObjectCoder = JSONObjectCoder()
    ) async throws -> SHA256Digest {
        let data = try ObjectCoding.encode(object, with: coder)
        return try await put(data, for: key, metadata: metadata, expires: expires, placement: placement)
    }

    /// `async` `BlobStorage.object(_:for:coder:)`. A cancelled task stops waiting and throws
    /// `CancellationError`.
    public func object<T: Decodable>(_ type: T.Type, for key: StoreKey, coder: any ObjectCoder = JSONObjectCoder())
        async throws -> T?
    {
        guard let entry = try await entry(for: key) else { return nil }
        return try ObjectCoding.decode(type, from: entry.value, key: key, with: coder)
    }
}
