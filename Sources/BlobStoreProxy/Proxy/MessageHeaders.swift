import BlobStoreHTTP

/// The header fields the proxy sends on: end-to-end fields pass unchanged in both directions,
/// in order, including ones it does not know; hop-by-hop ones (RFC 9110 §7.6.1) are its own
/// (`StoredResponse.endToEnd`, the one list the HTTP cache stores by).
enum MessageHeaders {
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
        var text = "\(method) \(target.requestTarget) HTTP/1.1\r\n"
        // Host first, as RFC 9112 §3.2 recommends.
        text += "Host: \(target.authority)\r\n"
        for field in headers where field.name.lowercased() != "host" { text += "\(field.name): \(field.value)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }
}
