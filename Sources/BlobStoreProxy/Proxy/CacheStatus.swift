/// The proxy's member of the `Cache-Status` response field (RFC 9211): whether it answered from
/// the cache, and if not why it forwarded, with what the origin said and whether it stored.
struct CacheStatus: Sendable, Equatable {
    /// Whether a stored response answered without a request to the origin.
    var hit = false
    /// Why the request went to the origin: `uri-miss`, `vary-miss`, `miss`, `stale`, `request`
    /// (the request asked for it), `method`, `bypass`; `nil` for a hit.
    var forward: String?
    /// The status the origin answered a forwarded request with.
    var forwardStatus: Int?
    /// The remaining freshness of a stored response served, in seconds (negative when stale).
    var ttl: Int?
    /// Whether the response was stored.
    var stored = false
    /// Whether it answered from another request's response (request collapsing).
    var collapsed = false
    /// More, such as why a response was not stored.
    var detail: String?

    /// The member, as `blobstore; hit; ttl=42` or `blobstore; fwd=uri-miss; fwd-status=200; stored`.
    func field(name: String) -> String {
        var text = ""
        text.reserveCapacity(name.utf8.count + 64 + (detail?.utf8.count ?? 0))
        text += name
        if hit { text += "; hit" }
        if let forward { text += "; fwd=\(forward)" }
        if let forwardStatus { text += "; fwd-status=\(forwardStatus)" }
        if let ttl { text += "; ttl=\(ttl)" }
        if stored { text += "; stored" }
        if collapsed { text += "; collapsed" }
        if let detail {
            // A quoted-string (RFC 9110 §5.6.4): a quote or backslash goes after a backslash.
            let escaped = detail.utf8.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            text += "; detail=\""
            if escaped {
                var bytes: [UInt8] = []
                for byte in detail.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                    bytes.append(byte)
                }
                text += String(decoding: bytes, as: UTF8.self)
            } else {
                text += detail
            }
            text += "\""
        }
        return text
    }
}
