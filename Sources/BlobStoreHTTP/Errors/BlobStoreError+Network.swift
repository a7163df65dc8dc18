import BlobStore

// MARK: - The code for HTTP

extension BlobStoreError.Code {
    /// A network request failed, or a server answered with something that is not HTTP.
    public static let network = BlobStoreError.Code("network")
}
