import BlobStoreHTTP

/// The request line and header fields of a request a client sent (RFC 9112 §3, §5).
struct RequestHead: Sendable, Equatable {
    /// The method, as sent (methods are case-sensitive: `get` is not `GET`).
    var method: String
    /// The request target, as sent: origin form (`/path?query`), absolute form
    /// (`http://host/path`, from a client using a forward proxy), `*`, or authority form.
    var target: String
    /// The minor version of `HTTP/1.x`: 0 or 1.
    var minorVersion: Int
    /// The header fields in order.
    var headers: HTTPHeaders

    /// Whether the connection stays open after this exchange as far as the client is concerned:
    /// HTTP/1.1 unless `Connection: close`, HTTP/1.0 only with `Connection: keep-alive`.
    var keepsAlive: Bool {
        MessageHeaders.keepsAlive(headers, minorVersion: minorVersion)
    }

    /// Whether the client waits for `100 Continue` before it sends the body.
    var expectsContinue: Bool {
        headers["Expect"]?.lowercased() == "100-continue"
    }
}
