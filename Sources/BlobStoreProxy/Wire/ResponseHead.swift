import BlobStoreHTTP

/// The status line and header fields of a response (RFC 9112 §4, §5).
struct ResponseHead: Sendable, Equatable {
    /// The minor version of `HTTP/1.x` the sender spoke.
    var minorVersion: Int
    /// The status code.
    var status: Int
    /// The reason phrase, possibly empty.
    var reason: String
    /// The header fields in order.
    var headers: HTTPHeaders

    /// Whether this is an interim (1xx) response that precedes the final one.
    var isInterim: Bool { (100..<200).contains(status) }

    /// Whether the sender keeps the connection open after this response.
    var keepsAlive: Bool {
        MessageHeaders.keepsAlive(headers, minorVersion: minorVersion)
    }

    /// The bytes of the status line and fields, ending with the empty line.
    var serialized: [UInt8] {
        var writer = HeadWriter(status: status, reason: reason.isEmpty ? Self.reason(for: status) : reason)
        for field in headers { writer.field(field.name, field.value) }
        return writer.ended()
    }

    /// The usual reason phrase for `status` (RFC 9110 §15), or `Unknown`.
    static func reason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 101: "Switching Protocols"
        case 102: "Processing"
        case 103: "Early Hints"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 203: "Non-Authoritative Information"
        case 204: "No Content"
        case 206: "Partial Content"
        case 300: "Multiple Choices"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 411: "Length Required"
        case 412: "Precondition Failed"
        case 413: "Content Too Large"
        case 414: "URI Too Long"
        case 417: "Expectation Failed"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Unknown"
        }
    }
}
