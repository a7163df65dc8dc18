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

    /// Appends the member, as `blobstore; hit; ttl=42` or
    /// `blobstore; fwd=uri-miss; fwd-status=200; stored`, to `bytes`: a response head and an
    /// access log line take it without a string made first.
    func append(name: String, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: name.utf8)
        if hit { bytes.append(contentsOf: "; hit".utf8) }
        if let forward {
            bytes.append(contentsOf: "; fwd=".utf8)
            bytes.append(contentsOf: forward.utf8)
        }
        if let forwardStatus {
            bytes.append(contentsOf: "; fwd-status=".utf8)
            bytes.append(contentsOf: String(forwardStatus).utf8)
        }
        if let ttl {
            bytes.append(contentsOf: "; ttl=".utf8)
            bytes.append(contentsOf: String(ttl).utf8)
        }
        if stored { bytes.append(contentsOf: "; stored".utf8) }
        if collapsed { bytes.append(contentsOf: "; collapsed".utf8) }
        if let detail {
            // A quoted-string (RFC 9110 §5.6.4): a quote or backslash goes after a backslash.
            bytes.append(contentsOf: "; detail=\"".utf8)
            for byte in detail.utf8 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}
