import BlobStore
import BlobStoreHTTP

/// Reads one message body from a connection, chunk by chunk, as its framing delimits it;
/// chunked framing is decoded (RFC 9112 §7.1) and trailer fields are discarded.
struct BodyReader {
    /// The connection the body arrives on.
    let connection: WireConnection
    /// How the body ends.
    let framing: BodyFraming
    /// Bytes left in the body (``BodyFraming/length(_:)``) or in the current chunk.
    private var remaining: Int64
    /// Whether the last byte has been read.
    private(set) var isFinished: Bool
    /// Whether the body ended before its framing said it would (the peer closed early).
    private(set) var isTruncated = false
    /// The longest chunk-size line or trailer line accepted.
    static let maxLineBytes = 8 << 10

    init(connection: WireConnection, framing: BodyFraming) {
        self.connection = connection
        self.framing = framing
        switch framing {
        case .none:
            (remaining, isFinished) = (0, true)
        case .length(let length):
            (remaining, isFinished) = (length, length == 0)
        case .chunked, .untilClose:
            (remaining, isFinished) = (0, false)
        }
    }

    /// The next bytes of the body, at most `limit`; `nil` once it has ended.
    ///
    /// - Throws: `network` when the connection fails, or a chunk line is malformed.
    mutating func next(limit: Int = WireConnection.readSize) async throws -> ArraySlice<UInt8>? {
        guard !isFinished else { return nil }
        switch framing {
        case .none:
            return nil
        case .length:
            let bytes = try await connection.readSome(limit: Int(min(Int64(limit), remaining)))
            guard !bytes.isEmpty else { return truncated() }
            remaining -= Int64(bytes.count)
            if remaining == 0 { isFinished = true }
            return bytes
        case .untilClose:
            let bytes = try await connection.readSome(limit: limit)
            if bytes.isEmpty {
                isFinished = true
                return nil
            }
            return bytes
        case .chunked:
            if remaining == 0 {
                let size = try await chunkSize()
                if size == 0 {
                    try await skipTrailers()
                    isFinished = true
                    return nil
                }
                remaining = size
            }
            let bytes = try await connection.readSome(limit: Int(min(Int64(limit), remaining)))
            guard !bytes.isEmpty else { return truncated() }
            remaining -= Int64(bytes.count)
            if remaining == 0 {
                let end = try await connection.readLine(maxBytes: 2)
                guard end.isEmpty else { throw BlobStoreError(.network, "A chunk is not followed by CRLF.") }
            }
            return bytes
        }
    }

    private mutating func truncated() -> ArraySlice<UInt8>? {
        isTruncated = true
        isFinished = true
        return nil
    }

    /// The size on a chunk-size line, extensions ignored.
    private func chunkSize() async throws -> Int64 {
        let line = try await connection.readLine(maxBytes: Self.maxLineBytes)
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty, digits.count <= 15, let size = Int64(String(decoding: digits, as: UTF8.self), radix: 16)
        else { throw BlobStoreError(.network, "A chunk-size line is not a hexadecimal number.") }
        return size
    }

    /// The trailer section after the last chunk, up to its empty line.
    private func skipTrailers() async throws {
        var count = 0
        while try await !connection.readLine(maxBytes: Self.maxLineBytes).isEmpty {
            count += 1
            guard count <= 100 else { throw BlobStoreError(.network, "The trailer section has over 100 fields.") }
        }
    }
}
