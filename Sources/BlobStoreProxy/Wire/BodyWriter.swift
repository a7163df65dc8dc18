/// Writes one message body to a connection in the framing its head announced: as it is for a
/// length or a close-delimited body, as chunks for chunked framing. A write does not wait
/// (``WireConnection/write(_:)``): the caller flushes the connection after each.
struct BodyWriter {
    /// The connection the body goes to.
    let connection: WireConnection
    /// The framing the head announced.
    let framing: BodyFraming

    /// Writes `bytes` (nothing for an empty slice: an empty chunk would end a chunked body).
    func write(_ bytes: ArraySlice<UInt8>) throws {
        guard !bytes.isEmpty else { return }
        switch framing {
        case .none: return
        case .length, .untilClose: try connection.write(bytes)
        case .chunked:
            // One send per chunk: size line, data and CRLF together.
            var chunk = Array((String(bytes.count, radix: 16) + "\r\n").utf8)
            chunk.reserveCapacity(chunk.count + bytes.count + 2)
            chunk.append(contentsOf: bytes)
            chunk.append(contentsOf: Self.crlf)
            try connection.write(chunk)
        }
    }

    /// Ends the body: the last chunk of a chunked body.
    func finish() throws {
        if framing == .chunked { try connection.write(Array("0\r\n\r\n".utf8)) }
    }

    private static let crlf: [UInt8] = [0x0D, 0x0A]
}
