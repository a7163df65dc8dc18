import Foundation

/// One HTTP request as ``HTTPCacheBackend`` sends it.
struct HTTPRequest: Sendable {
    /// `GET`, `HEAD` or `PUT`.
    var method: String
    /// The absolute path, percent-encoded as sent.
    var path: String
    /// Extra header fields (`Authorization`, `Content-Type`).
    var headers: [(name: String, value: String)]
    var body: Data
}

/// A reply: the status and, for `GET`, the body.
struct HTTPResponse: Sendable, Equatable {
    var status: Int
    var body: Data
}

/// Sends a request and returns the reply, within the timeouts it was made with.
protocol HTTPTransport: Sendable {
    /// - Parameters:
    ///   - request: What to send.
    ///   - maximumBody: The largest body accepted; a larger one is an error.
    /// - Throws: ``BlobStoreError/Code/remote`` when the server is unreachable, too slow or
    ///   answers something that is not HTTP.
    func send(_ request: HTTPRequest, maximumBody: Int) throws -> HTTPResponse
}
