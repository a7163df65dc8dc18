// MARK: - Codes for typed objects and HTTP

extension BlobStoreError.Code {
    /// A stored value could not be decoded as the requested type (another type, or another
    /// coder, wrote it).
    public static let undecodable = BlobStoreError.Code("undecodable")
    /// A value could not be encoded by the configured coder.
    public static let unencodable = BlobStoreError.Code("unencodable")
    /// A network request failed, or a server answered with something that is not HTTP.
    public static let network = BlobStoreError.Code("network")
}
