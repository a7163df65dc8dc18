import BlobStoreHTTP

/// The header fields the proxy sends on: end-to-end fields pass unchanged in both directions,
/// in order, including ones it does not know; hop-by-hop ones (RFC 9110 §7.6.1) are its own
/// (`StoredResponse.endToEnd`, the one list the HTTP cache stores by).
enum MessageHeaders {
    /// Whether the connection that carried a message with `headers` in HTTP/1.`minorVersion`
    /// stays open after it (RFC 9112 §9.3): in HTTP/1.1 unless `Connection` says `close`, in
    /// HTTP/1.0 when it says `keep-alive`.
    static func keepsAlive(_ headers: HTTPHeaders, minorVersion: Int) -> Bool {
        let options = headers.list("Connection")
        if HTTPHeaders.isOne(of: options, "close") { return false }
        return minorVersion >= 1 || HTTPHeaders.isOne(of: options, "keep-alive")
    }

    /// `headers` with `member` appended to its list field `name` (`Via`, `Cache-Status`).
    static func appending(_ member: String, to name: String, in headers: HTTPHeaders) -> HTTPHeaders {
        var headers = headers
        if let existing = headers[name] {
            headers.set(name, "\(existing), \(member)")
        } else {
            headers.append(name, member)
        }
        return headers
    }

    /// The head to send the origin for a client's request: its end-to-end fields with the
    /// origin's `Host`, the proxy's `Via`, and the framing of the body it sends.
    static func originRequest(
        method: String, target: ForwardTarget, clientHeaders: HTTPHeaders, framing: BodyFraming, via: String
    ) -> [UInt8] {
        var headers = StoredResponse.endToEnd(clientHeaders)
        headers.set("Host", target.authority)
        headers.set("Expect", nil)
        headers = appending("1.1 \(via)", to: "Via", in: headers)
        switch framing {
        case .length(let length): headers.set("Content-Length", String(length))
        case .chunked:
            headers.set("Content-Length", nil)
            headers.set("Transfer-Encoding", "chunked")
        case .none, .untilClose: break
        }
        var writer = HeadWriter(startLine: "\(method) \(target.requestTarget) HTTP/1.1")
        // Host first, as RFC 9112 §3.2 recommends.
        writer.field("Host", target.authority)
        for field in headers where !HTTPHeaders.sameName(field.name, "Host") { writer.field(field.name, field.value) }
        return writer.ended()
    }
}
