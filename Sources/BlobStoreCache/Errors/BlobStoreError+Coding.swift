import BlobStore

// MARK: - Codes for typed objects

extension BlobStoreError.Code {
    /// A stored value could not be decoded as the requested type (another type, or another
    /// coder, wrote it).
    public static let undecodable = BlobStoreError.Code("undecodable")
    /// A value could not be encoded by the chosen coder.
    public static let unencodable = BlobStoreError.Code("unencodable")
}
