import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as ``HTTPCache/download(for:to:)`` delivers it: status and headers, with the body
/// in the file the download was given.
public struct HTTPCacheDownload: Sendable, Equatable {
    /// The request URL.
    public var url: URL
    /// The status code.
    public var status: Int
    /// The header fields; a stored response's carry its current `Age`.
    public var headers: HTTPHeaders
    /// The size of the body written to the file, in bytes.
    public var byteCount: Int
    /// Whether it came from the cache, and how.
    public var outcome: HTTPCacheOutcome

    /// A download's result.
    public init(url: URL, status: Int, headers: HTTPHeaders, byteCount: Int, outcome: HTTPCacheOutcome) {
        self.url = url
        self.status = status
        self.headers = headers
        self.byteCount = byteCount
        self.outcome = outcome
    }
}
