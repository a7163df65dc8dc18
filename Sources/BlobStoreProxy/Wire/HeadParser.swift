import BlobStore
import BlobStoreHTTP
import Glibc

/// Parses the head of a message — start line and header fields, without the empty line that
/// ends it — as RFC 9112 §2–§6 describe, strict with clients and tolerant with origins.
///
/// A request is rejected (400) for anything a smuggling attack or a confused parser could use:
/// a field line folded onto the next (obs-fold), whitespace between a field name and its colon,
/// a control character in a value, a second `Host`, differing `Content-Length` values,
/// `Content-Length` with `Transfer-Encoding`, or a transfer coding other than a final `chunked`.
/// A response from an origin is read as leniently as is safe: folds become a space, lines
/// without a colon are skipped, and `Transfer-Encoding` overrides `Content-Length`.
///
/// The head is read through an unsafe buffer, valid for the call only: its lines are slices that
/// are not reference-counted, and only the strings the message keeps are made.
enum HeadParser {
    /// The bytes of a head, or of one of its lines.
    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    /// The request in `head`.
    ///
    /// - Parameter maxFields: The most header fields accepted; more is 431.
    /// - Throws: ``Rejection`` with 400, 431, 501 or 505.
    static func request(_ head: ArraySlice<UInt8>, maxFields: Int) throws(Rejection) -> RequestHead {
        try head.withUnsafeBufferPointer { (head) throws(Rejection) in try request(head[...], maxFields: maxFields) }
    }

    /// The response in `head`, from an origin.
    ///
    /// - Throws: ``Rejection`` with 502 when the status line is not one.
    static func response(_ head: ArraySlice<UInt8>) throws(Rejection) -> ResponseHead {
        try head.withUnsafeBufferPointer { (head) throws(Rejection) in try response(head[...]) }
    }

    private static func request(_ head: Bytes, maxFields: Int) throws(Rejection) -> RequestHead {
        var lines = self.lines(head)
        guard !lines.isEmpty else { throw Rejection(400, "the request line is empty") }
        let requestLine = lines.removeFirst()
        // METHOD SP TARGET SP VERSION: exactly two spaces (the target has none).
        let space = UInt8(ascii: " ")
        guard let firstSpace = requestLine.firstIndex(of: space),
            let secondSpace = requestLine[(firstSpace + 1)...].firstIndex(of: space),
            !requestLine[(secondSpace + 1)...].contains(space)
        else { throw Rejection(400, "the request line is not METHOD TARGET HTTP/1.1") }
        let methodBytes = requestLine[..<firstSpace]
        guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else {
            throw Rejection(400, "the request line is not METHOD TARGET HTTP/1.1")
        }
        let targetBytes = requestLine[(firstSpace + 1)..<secondSpace]
        guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Rejection(400, "the request target is empty or has a space or control character")
        }
        // Token and visible ASCII bytes: valid UTF-8 as they are.
        let method = String(decoding: methodBytes, as: UTF8.self)
        let target = String(decoding: targetBytes, as: UTF8.self)
        let minor = try version(requestLine[(secondSpace + 1)...])
        let headers = try fields(lines, maxFields: maxFields, strict: true)
        var hosts = 0
        for field in headers where HTTPHeaders.sameName(field.name, "Host") { hosts += 1 }
        if hosts > 1 { throw Rejection(400, "the request has more than one Host field") }
        if minor >= 1, hosts == 0 { throw Rejection(400, "an HTTP/1.1 request needs a Host field") }
        return RequestHead(method: method, target: target, minorVersion: minor, headers: headers)
    }

    private static func response(_ head: Bytes) throws(Rejection) -> ResponseHead {
        var lines = self.lines(head)
        guard !lines.isEmpty else { throw Rejection(502, "the origin sent an empty status line") }
        let statusLine = lines.removeFirst()
        // HTTP/1.x SP 3DIGIT [SP reason]
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let start = statusLine.startIndex
        guard statusLine.count >= 12, matches(statusLine[start..<(start + 7)], "HTTP/1."),
            digits.contains(statusLine[start + 7]), statusLine[start + 8] == UInt8(ascii: " "),
            statusLine[(start + 9)..<(start + 12)].allSatisfy(digits.contains),
            statusLine.count == 12 || statusLine[start + 12] == UInt8(ascii: " ")
        else { throw Rejection(502, "the origin sent a malformed status line") }
        let minorByte = statusLine[start + 7]
        let status = statusLine[(start + 9)..<(start + 12)].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        guard status >= 100 else { throw Rejection(502, "the origin sent a malformed status line") }
        let reason = statusLine.count > 13 ? String(decoding: statusLine[(start + 13)...], as: UTF8.self) : ""
        let headers = try fields(lines, maxFields: .max, strict: false)
        return ResponseHead(
            minorVersion: Int(minorByte - UInt8(ascii: "0")), status: status, reason: reason, headers: headers)
    }

    /// How the body of `request` is delimited (RFC 9112 §6.3).
    ///
    /// - Throws: ``Rejection`` 400 for a `Content-Length` that is not one number, for both
    ///   `Content-Length` and `Transfer-Encoding`, and for `Transfer-Encoding` in HTTP/1.0;
    ///   501 for a transfer coding other than `chunked`.
    static func framing(of request: RequestHead) throws(Rejection) -> BodyFraming {
        let codings = request.headers.list("Transfer-Encoding").map { $0.lowercased() }
        let hasEncoding = request.headers.contains("Transfer-Encoding")
        if hasEncoding {
            if request.headers.contains("Content-Length") {
                throw Rejection(400, "the request has both Content-Length and Transfer-Encoding")
            }
            if request.minorVersion == 0 { throw Rejection(400, "an HTTP/1.0 request has Transfer-Encoding") }
            guard codings == ["chunked"] else {
                throw Rejection(501, "the request's transfer coding is not chunked alone")
            }
            return .chunked
        }
        guard let length = try contentLength(request.headers, status: 400) else { return .none }
        return length == 0 ? .none : .length(length)
    }

    /// How the body of `response` to a `method` request is delimited (RFC 9112 §6.3).
    ///
    /// - Throws: ``Rejection`` 502 for differing or malformed `Content-Length` values.
    static func framing(of response: ResponseHead, method: String) throws(Rejection) -> BodyFraming {
        if method == "HEAD" || response.isInterim || response.status == 204 || response.status == 304 {
            return .none
        }
        let codings = response.headers.list("Transfer-Encoding").map { $0.lowercased() }
        if !codings.isEmpty { return codings.last == "chunked" ? .chunked : .untilClose }
        guard let length = try contentLength(response.headers, status: 502) else { return .untilClose }
        return .length(length)
    }

    // MARK: - Parts

    /// `Content-Length` as one number: a list of equal values counts as one (RFC 9110 §8.6).
    private static func contentLength(_ headers: HTTPHeaders, status: Int) throws(Rejection) -> Int64? {
        // One field of digits alone, the usual case, is read without splitting it into a list.
        var fields = headers.fields.lazy.filter { HTTPHeaders.sameName($0.name, "Content-Length") }.makeIterator()
        guard let first = fields.next() else { return nil }
        if fields.next() == nil, let length = decimal(first.value) { return length }
        let values = headers.list("Content-Length")
        guard !values.isEmpty else {
            if headers.contains("Content-Length") { throw Rejection(status, "Content-Length is empty") }
            return nil
        }
        guard let value = values.first, values.allSatisfy({ $0 == value }), let length = decimal(value) else {
            throw Rejection(status, "Content-Length is not one decimal number")
        }
        return length
    }

    /// `value` as a `Content-Length`: 1 to 18 ASCII digits, nothing else.
    private static func decimal(_ value: String) -> Int64? {
        guard !value.isEmpty, value.utf8.count <= 18,
            value.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        return Int64(value)
    }

    /// `HTTP/1.0` → 0, `HTTP/1.1` → 1.
    private static func version(_ bytes: Bytes) throws(Rejection) -> Int {
        if matches(bytes, "HTTP/1.1") { return 1 }
        let text = String(decoding: bytes, as: UTF8.self)
        switch text {
        case "HTTP/1.1": return 1
        case "HTTP/1.0": return 0
        default:
            if text.hasPrefix("HTTP/"), text.count == 8 {
                throw Rejection(505, "only HTTP/1.0 and HTTP/1.1 are served")
            }
            throw Rejection(400, "the request line does not end with HTTP/1.1")
        }
    }

    /// The header fields in `lines`.
    private static func fields(_ lines: [Bytes], maxFields: Int, strict: Bool) throws(Rejection)
        -> HTTPHeaders
    {
        var fields: [HTTPHeaders.Field] = []
        fields.reserveCapacity(lines.count)
        for line in lines {
            if let first = line.first, first == UInt8(ascii: " ") || first == UInt8(ascii: "\t") {
                // obs-fold (RFC 9112 §5.2): refused from clients, joined with a space from origins.
                if strict { throw Rejection(400, "a header field is folded onto a second line") }
                let continuation = trimmed(line)
                if var last = fields.popLast() {
                    if !continuation.isEmpty { last.value += last.value.isEmpty ? continuation : " " + continuation }
                    fields.append(last)
                }
                continue
            }
            guard let colon = firstIndex(of: UInt8(ascii: ":"), in: line) else {
                if strict { throw Rejection(400, "a header line has no colon") }
                continue
            }
            let nameBytes = line[line.startIndex..<colon]
            guard !nameBytes.isEmpty, nameBytes.allSatisfy(isTokenByte) else {
                if strict { throw Rejection(400, "a header field name is empty or has a space or separator") }
                continue
            }
            let valueBytes = line[line.index(after: colon)...]
            if strict, valueBytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                throw Rejection(400, "a header field value has a control character")
            }
            fields.append(
                HTTPHeaders.Field(
                    name: knownName(nameBytes) ?? String(decoding: nameBytes, as: UTF8.self), value: trimmed(valueBytes)
                ))
            if fields.count > maxFields { throw Rejection(431, "the request has more than \(maxFields) header fields") }
        }
        return HTTPHeaders(fields)
    }

    /// The name `bytes` spell when it is one of the common ones, spelt as usual: a string
    /// literal, compared as bytes, rather than a string made and checked as UTF-8 (most of a
    /// head's field names are among these). Any other spelling, another case included, is made
    /// into a string as it is.
    private static func knownName(_ bytes: Bytes) -> String? {
        switch bytes.count {
        case 3: return matches(bytes, "Age") ? "Age" : matches(bytes, "Via") ? "Via" : nil
        case 4:
            if matches(bytes, "Date") { return "Date" }
            if matches(bytes, "Host") { return "Host" }
            if matches(bytes, "ETag") { return "ETag" }
            return matches(bytes, "Vary") ? "Vary" : nil
        case 6:
            if matches(bytes, "Server") { return "Server" }
            if matches(bytes, "Accept") { return "Accept" }
            return matches(bytes, "Cookie") ? "Cookie" : nil
        case 7: return matches(bytes, "Expires") ? "Expires" : matches(bytes, "Referer") ? "Referer" : nil
        case 8: return matches(bytes, "Location") ? "Location" : nil
        case 10:
            if matches(bytes, "Connection") { return "Connection" }
            if matches(bytes, "User-Agent") { return "User-Agent" }
            if matches(bytes, "Keep-Alive") { return "Keep-Alive" }
            return matches(bytes, "Set-Cookie") ? "Set-Cookie" : nil
        case 12: return matches(bytes, "Content-Type") ? "Content-Type" : nil
        case 13:
            if matches(bytes, "Last-Modified") { return "Last-Modified" }
            if matches(bytes, "Cache-Control") { return "Cache-Control" }
            if matches(bytes, "Accept-Ranges") { return "Accept-Ranges" }
            if matches(bytes, "If-None-Match") { return "If-None-Match" }
            return matches(bytes, "Authorization") ? "Authorization" : nil
        case 14: return matches(bytes, "Content-Length") ? "Content-Length" : nil
        case 15:
            if matches(bytes, "Accept-Encoding") { return "Accept-Encoding" }
            return matches(bytes, "Accept-Language") ? "Accept-Language" : nil
        case 16: return matches(bytes, "Content-Encoding") ? "Content-Encoding" : nil
        case 17:
            if matches(bytes, "Transfer-Encoding") { return "Transfer-Encoding" }
            return matches(bytes, "If-Modified-Since") ? "If-Modified-Since" : nil
        default: return nil
        }
    }

    /// Where `byte` first is in `bytes`, found with `memchr` (a slice's own search goes a byte
    /// at a time).
    private static func firstIndex(of byte: UInt8, in bytes: Bytes) -> Int? {
        guard !bytes.isEmpty, let base = bytes.base.baseAddress,
            let found = memchr(base + bytes.startIndex, CInt(byte), bytes.count)
        else { return nil }
        return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
    }

    /// The lines of `head`, split at LF, each without its CR.
    private static func lines(_ head: Bytes) -> [Bytes] {
        var lines: [Bytes] = []
        lines.reserveCapacity(16)
        var start = head.startIndex
        while start <= head.endIndex {
            let end = firstIndex(of: 0x0A, in: head[start...]) ?? head.endIndex
            var line = head[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            lines.append(line)
            start = end + 1
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// `bytes` as text without spaces and tabs at either end.
    private static func trimmed(_ bytes: Bytes) -> String {
        let isSpace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }

    /// Whether `bytes` are those of `literal`, compared as two buffers (through a string's view,
    /// a byte at a time, the comparison cost more than the rest of a status line's parsing).
    private static func matches(_ bytes: Bytes, _ literal: StaticString) -> Bool {
        bytes.count == literal.utf8CodeUnitCount
            && literal.withUTF8Buffer {
                UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes)).hasSameBytes(
                    as: UnsafeRawBufferPointer($0))
            }
    }

    /// Whether `byte` may be part of a token (RFC 9110 §5.6.2): a method or a field name.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"),
            UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"),
            UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
