import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A response as the HTTP cache delivers it: status, headers, body, and how it was obtained.
public struct HTTPCacheResult: Sendable, Equatable {
    /// The request URL.
    public var url: URL
    /// The status code.
    public var status: Int
    /// The header fields; a stored response's carry its current `Age`.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// Whether it came from the cache, and how.
    public var outcome: HTTPCacheOutcome

    /// A result.
    public init(url: URL, status: Int, headers: HTTPHeaders, body: Data, outcome: HTTPCacheOutcome) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.outcome = outcome
    }

    /// The status and headers as an `HTTPURLResponse`, as `URLSession` returns them.
    public var httpResponse: HTTPURLResponse? {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers.dictionary)
    }
}
