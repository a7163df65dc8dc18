import Foundation

// MARK: - Typed objects

extension CachedStore {
    /// Encodes `object` with ``coding`` and stores it under `key`, like a raw value: with the same
    /// metadata, expiry, placement and deduplication (equal objects encode to equal bytes).
    ///
    /// - Parameters:
    ///   - object: Any `Encodable` value.
    ///   - key: Any bytes up to 16 MiB.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing.
    ///   - placement: Both tiers (the default) or memory only.
    /// - Returns: The SHA-256 of the encoded bytes.
    /// - Throws: ``BlobStoreError`` with code `unencodable` when the coder refuses the value, or
    ///   from the disk store.
    @discardableResult
    public func put<T: Encodable>(
        object: T, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        placement: Placement = .memoryAndDisk
    ) throws -> SHA256Digest {
        let data = try coding.encode(object)
        return try put(data, for: key, metadata: metadata, expires: expires, placement: placement)
    }

    /// The object stored under `key`, decoded as a `T` with ``coding``; `nil` as for
    /// ``entry(for:)``.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - key: The key it was stored under.
    /// - Throws: ``BlobStoreError`` with code `undecodable` when the stored bytes are not a `T`
    ///   in this coding (the entry is left as it is), or from the disk store.
    public func object<T: Decodable>(_ type: T.Type, for key: StoreKey) throws -> T? {
        guard let entry = try entry(for: key) else { return nil }
        return try coding.decode(type, from: entry.value, key: key)
    }
}
