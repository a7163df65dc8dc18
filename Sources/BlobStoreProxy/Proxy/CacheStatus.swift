import BlobStoreHTTP

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
    func append<Sink: ByteSink>(name: String, to bytes: inout Sink) {
        bytes.append(name)
        if hit { bytes.append(literal: "; hit") }
        if let forward {
            bytes.append(literal: "; fwd=")
            bytes.append(forward)
        }
        if let forwardStatus {
            bytes.append(literal: "; fwd-status=")
            bytes.append(decimal: forwardStatus)
        }
        if let ttl {
            bytes.append(literal: "; ttl=")
            bytes.append(decimal: ttl)
        }
        if stored { bytes.append(literal: "; stored") }
        if collapsed { bytes.append(literal: "; collapsed") }
        if let detail {
            // A quoted-string (RFC 9110 §5.6.4): a quote or backslash goes after a backslash.
            bytes.append(literal: "; detail=\"")
            var detail = detail
            detail.withUTF8 { detail in
                func isEscaped(_ byte: UInt8) -> Bool { byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") }
                // Most details have neither: their bytes go at once.
                guard detail.contains(where: isEscaped) else {
                    return bytes.append(bytes: UnsafeRawBufferPointer(detail))
                }
                for byte in detail {
                    if isEscaped(byte) { bytes.append(byte: UInt8(ascii: "\\")) }
                    bytes.append(byte: byte)
                }
            }
            bytes.append(byte: UInt8(ascii: "\""))
        }
    }
}
