import Foundation

/// One request as ``HTTPClient`` sends it.
package struct HTTPClientRequest: Sendable {
    /// `GET`, `HEAD`, `PUT`, … as sent.
    package var method: String
    /// An absolute `http://` or `https://` URL.
    package var url: URL
    /// Header fields, in order, sent after `Host`, `User-Agent` and `Connection`; a field of
    /// those names here is sent instead of the client's own.
    package var headers: [(name: String, value: String)]
    /// The body; sent with `Content-Length` when it is not empty or the method is `PUT` or
    /// `POST`.
    package var body: Data

    package init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data = Data()) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}
