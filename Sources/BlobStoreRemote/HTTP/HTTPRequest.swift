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
