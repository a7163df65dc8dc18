import BlobStoreHTTP

/// The header fields the proxy sends on: end-to-end fields pass unchanged in both directions,
/// in order, including ones it does not know; hop-by-hop ones (RFC 9110 §7.6.1) are its own
/// (`StoredResponse.isHopByHop`, the one definition the HTTP cache stores by too).
enum MessageHeaders {
    /// Whether the connection that carried a message with `headers` in HTTP/1.`minorVersion`
    /// stays open after it (RFC 9112 §9.3): in HTTP/1.1 unless `Connection` says `close`, in
    /// HTTP/1.0 when it says `keep-alive`.
    static func keepsAlive(_ headers: HTTPHeaders, minorVersion: Int) -> Bool {
        if headers.listContains("Connection", "close") { return false }
        return minorVersion >= 1 || headers.listContains("Connection", "keep-alive")
    }

    /// The head to send the origin for a client's request: its end-to-end fields with the
    /// origin's `Host`, the proxy's `Via` member `via` (`1.1 <name>`), the framing of the body it
    /// sends and, when `validating` a stored response, the conditions on its validators
    /// (`If-None-Match` on its `ETag`, `If-Modified-Since` on its `Last-Modified`) in place of the
    /// client's. The validators are the proxy's own fields: a client's `Connection` option naming
    /// one removes the client's field, not them. Written field by field from the client's,
    /// without a copy of them edited first: this is every forwarded request's work.
    static func originRequest(
        method: String, target: ForwardTarget, clientHeaders: HTTPHeaders, validating stored: StoredResponse? = nil,
        framing: BodyFraming, via: String
    ) -> [UInt8] {
        let options = StoredResponse.connectionOptions(clientHeaders)
        let sendsFraming = framing != .none && framing != .untilClose
        var writer = HeadWriter(method: method, target: target.requestTarget)
        // Host first, as RFC 9112 §3.2 recommends.
        writer.field("Host", target.authority)
        var vias: String?
        for field in clientHeaders where !StoredResponse.isHopByHop(field, options: options) {
            let name = field.name
            if HTTPHeaders.sameName(name, "Via") {
                vias = vias.map { "\($0), \(field.value)" } ?? field.value
            } else if HTTPHeaders.sameName(name, "Host") || HTTPHeaders.sameName(name, "Expect")
                || (sendsFraming && HTTPHeaders.sameName(name, "Content-Length"))
                || (stored != nil
                    && (HTTPHeaders.sameName(name, "If-None-Match") || HTTPHeaders.sameName(name, "If-Modified-Since")))
            {
                continue
            } else {
                writer.field(name, field.value)
            }
        }
        if let stored {
            if let etag = stored.etag { writer.field("If-None-Match", etag) }
            if let lastModified = stored.lastModifiedValue { writer.field("If-Modified-Since", lastModified) }
        }
        writer.field("Via", joining: vias, via)
        switch framing {
        case .length(let length): writer.field("Content-Length", Int(length))
        case .chunked: writer.field("Transfer-Encoding", "chunked")
        case .none, .untilClose: break
        }
        return writer.ended()
    }
}
