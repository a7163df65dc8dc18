import Foundation

// MARK: - The disk store as a BlobStorage

extension BlobStore: BlobStorage, EntryOpener {
    /// Stores `data` under `key` (``put(_:for:metadata:expires:expecting:)-4lzjp``), or, for
    /// ``StoragePlacement/memoryOnly``, keeps nothing: a disk store has no memory tier, and the
    /// entry under `key` is removed so that no older value outlives the new one.
    ///
    /// - Returns: The SHA-256 of `data`.
    @discardableResult
    public func put(_ data: Data, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement)
        throws -> SHA256Digest
    {
        switch placement {
        case .memoryAndDisk:
            return try put(data, for: key, metadata: metadata, expires: expires, expecting: nil)
        case .memoryOnly:
            try remove(key)
            return SHA256Hasher.hash(data)
        }
    }

    /// Stores the file at `url` under `key`, streamed (``put(contentsOf:for:metadata:expires:)-1i79u``),
    /// or, for ``StoragePlacement/memoryOnly``, keeps nothing and removes the entry under `key`,
    /// as ``put(_:for:metadata:expires:placement:)`` does.
    ///
    /// - Returns: The SHA-256 of the file's contents.
    @discardableResult
    public func put(
        contentsOf url: URL, for key: StoreKey, metadata: Data, expires: Date?, placement: StoragePlacement
    ) throws -> SHA256Digest {
        switch placement {
        case .memoryAndDisk:
            return try put(contentsOf: url, for: key, metadata: metadata, expires: expires)
        case .memoryOnly:
            try remove(key)
            return try SHA256Hasher.hash(contentsOf: url)
        }
    }
}
