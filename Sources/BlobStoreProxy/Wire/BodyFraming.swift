/// How the end of a message body is found (RFC 9112 §6).
enum BodyFraming: Sendable, Equatable {
    /// No body.
    case none
    /// Exactly this many bytes (`Content-Length`).
    case length(Int64)
    /// `Transfer-Encoding: chunked`.
    case chunked
    /// Everything until the sender closes the connection (a response without length or chunking).
    case untilClose
}
