import BlobStore
import Foundation

/// One request sent by ``HTTPClient`` and its response, read as far as its head: the body is read
/// by ``readBody(maximum:into:)`` a piece at a time, as it arrives, so a body of any size passes
/// through a buffer of at most 64 KiB (the connection's receive size) plus one line.
///
/// The connection closes after the exchange (the request says `Connection: close`); ``close()``
/// ends it early, for a body nobody wants. Not thread-safe: one caller reads it.
package final class HTTPExchange {
    /// The longest status line, header line or chunk-size line, and the most header lines.
    package static let maximumLineLength = 16 << 10
    package static let maximumHeaderCount = 200

    /// The final response's status and fields (interim `1xx` responses are skipped).
    package let head: HTTPResponseHead
    /// How the body is delimited (`.none` when it cannot be read: ``framingFailure``).
    package let framing: Framing
    /// Why the body cannot be read, thrown by ``readBody(maximum:into:)`` rather than when the
    /// head arrives, so that a caller that does not read it (the remote tier, for an error status)
    /// still gets the status.
    private let framingFailure: BlobStoreError?
    private let connection: TCPConnection
    /// Whether each piece read moves the deadline on (the timeout bounds the wait for the next
    /// byte, not the whole body).
    private let deadlineIsIdle: Bool
    private var bodyRead = false

    /// How a response body is delimited (RFC 9112 §6.3).
    package enum Framing: Equatable {
        case none
        case length(Int)
        case chunked
        case untilClose
    }

    /// Reads the response to a `method` request from `connection`, the request sent.
    package init(connection: TCPConnection, method: String, deadlineIsIdle: Bool) throws {
        self.connection = connection
        self.deadlineIsIdle = deadlineIsIdle
        var head = try Self.readHead(connection)
        while (100...199).contains(head.status), head.status != 101 {  // 100 Continue and other interim replies
            if deadlineIsIdle { connection.extendDeadline() }
            head = try Self.readHead(connection)
        }
        guard head.status != 101 else { throw connection.server.failure("the server switched protocols (101).") }
        // With an idle deadline, the wait for the body's first bytes is a wait of its own.
        if deadlineIsIdle { connection.extendDeadline() }
        self.head = head
        do {
            framing = try Self.framing(of: head, method: method, server: connection.server)
            framingFailure = nil
        } catch {
            framing = .none
            framingFailure = error
        }
    }

    deinit { connection.close() }

    /// Closes the connection; the body is not read.
    package func close() { connection.close() }

    /// Reads the body, handing each piece to `sink` as it arrives.
    ///
    /// - Parameter maximum: The most bytes accepted; more is ``BlobStoreError/Code/tooLarge``.
    /// - Returns: The body's size in bytes.
    /// - Throws: The connection's failures (its code), a framing error, a body cut short, or what
    ///   `sink` throws.
    @discardableResult
    package func readBody(maximum: Int = .max, into sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        precondition(!bodyRead, "the body is read once")
        bodyRead = true
        defer { connection.close() }
        if let framingFailure { throw framingFailure }
        switch framing {
        case .none:
            return 0
        case .length(let length):
            guard length <= maximum else { throw connection.server.tooLarge(size: length, maximum: maximum) }
            try readExactly(length, sink)
            return length
        case .chunked:
            return try readChunked(maximum: maximum, sink)
        case .untilClose:
            var total = 0
            func take(_ piece: UnsafeRawBufferPointer) throws {
                guard piece.count <= maximum - total else {
                    throw connection.server.tooLarge(size: total + piece.count, maximum: maximum, orMore: true)
                }
                try sink(piece)
            }
            while case let count = try connection.readSome(maximum: Int.max, take), count > 0 {
                total += count
                if deadlineIsIdle { connection.extendDeadline() }
            }
            // Over TLS the end of a body read to the end is known to be its end only with the
            // server's close_notify; over plain TCP a FIN is all there is.
            guard !connection.endedWithoutCloseNotify else {
                throw connection.server.failure(
                    "the server ended the TLS connection without close_notify inside a body read to its end; "
                        + "it may be cut short.")
            }
            return total
        }
    }

    /// The body in memory.
    package func readBody(maximum: Int) throws -> Data {
        var body = Data()
        try readBody(maximum: maximum) { body.append(contentsOf: $0) }
        return body
    }

    // MARK: - The head

    private static func readHead(_ connection: TCPConnection) throws -> HTTPResponseHead {
        let status = try readStatus(connection)
        var fields: [HTTPResponseHead.Field] = []
        for _ in 0...maximumHeaderCount {
            let line = try connection.readLine(maximum: maximumLineLength)
            if line.isEmpty { return HTTPResponseHead(status: status, fields: fields) }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
                !line[..<colon].contains(where: { $0 == 32 || $0 == 9 })
            else { throw malformed(connection, "a header line that is not 'name: value'") }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            fields.append(.init(name: name, value: value.trimmingCharacters(in: .whitespaces)))
        }
        throw malformed(connection, "more than \(maximumHeaderCount) header lines")
    }

    private static func readStatus(_ connection: TCPConnection) throws -> Int {
        let line = String(decoding: try connection.readLine(maximum: maximumLineLength), as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3,
            parts[1].allSatisfy(\.isASCII), let status = Int(parts[1]), status >= 100
        else { throw malformed(connection, "a bad status line") }
        return status
    }

    /// The body's framing (RFC 9112 §6.3): none for `HEAD`, `1xx`, `204` and `304`; chunked when
    /// that is the transfer coding (any other is refused: this client decodes none); else by
    /// `Content-Length`, which must be one non-negative number; else to the end of the stream.
    static func framing(of head: HTTPResponseHead, method: String, server: NetworkPeer) throws(BlobStoreError)
        -> Framing
    {
        if head.hasNoBody(method: method) { return .none }
        if let field = head["Transfer-Encoding"] {
            let codings = field.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                .filter { $0 != "identity" }
            // Another coding would be read to the end and handed out still encoded: refused.
            if codings == ["chunked"] { return .chunked }
            if !codings.isEmpty {
                throw server.failure(
                    "the reply is not HTTP/1.1 this client reads: the transfer coding '\(field.prefix(40))'.")
            }
        }
        guard let lengths = head["Content-Length"] else { return .untilClose }
        let values = Set(lengths.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        guard values.count == 1, let text = values.first, !text.isEmpty, text.count <= 18,
            text.allSatisfy({ $0.isASCII && $0.isNumber }), let length = Int(text)
        else { throw server.failure("the reply is not HTTP/1.1: a bad Content-Length.") }
        return .length(length)
    }

    // MARK: - The body

    private func readExactly(_ count: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        var left = count
        while left > 0 {
            let read = try connection.readSome(maximum: left, sink)
            guard read > 0 else {
                throw connection.server.failure("the server closed the connection in the middle of a reply.")
            }
            left -= read
            if deadlineIsIdle { connection.extendDeadline() }
        }
    }

    private func readChunked(maximum: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        var total = 0
        while true {
            let line = try connection.readLine(maximum: Self.maximumLineLength)
            guard let size = Self.chunkSize(line) else { throw Self.malformed(connection, "a bad chunk size") }
            if size == 0 { break }
            guard size <= maximum - total else {
                throw connection.server.tooLarge(size: total + size, maximum: maximum, orMore: true)
            }
            try readExactly(size, sink)
            total += size
            guard try connection.readLine(maximum: 2).isEmpty else {
                throw Self.malformed(connection, "a chunk without CRLF")
            }
        }
        for _ in 0...Self.maximumHeaderCount {  // trailer fields, then an empty line
            if try connection.readLine(maximum: Self.maximumLineLength).isEmpty { return total }
        }
        throw Self.malformed(connection, "too many trailer lines")
    }

    /// The size a chunk-size line gives (RFC 9112 §7.1): hex digits, then optional spaces or
    /// tabs, then nothing or `;` and extensions; `nil` for anything else (a sign, a space inside
    /// the number, more than 15 digits).
    static func chunkSize(_ line: [UInt8]) -> Int? {
        var size = 0
        var digits = 0
        var index = 0
        while index < line.count, let digit = hexValue(line[index]) {
            guard digits < 15 else { return nil }
            size = size << 4 | digit
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        while index < line.count, line[index] == 32 || line[index] == 9 { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else { return nil }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): Int(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }

    private static func malformed(_ connection: TCPConnection, _ what: String) -> BlobStoreError {
        connection.server.failure("the reply is not HTTP/1.1: \(what).")
    }
}
