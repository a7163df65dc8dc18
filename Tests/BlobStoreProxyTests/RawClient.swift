import Foundation
import Glibc

/// A response as read off the wire by ``RawClient``.
struct RawResponse {
    var status: Int
    /// The fields in order, names as sent.
    var fields: [(name: String, value: String)]
    var body: [UInt8]
    /// The interim (1xx) responses before it: status and fields.
    var interim: [(status: Int, fields: [(name: String, value: String)])] = []

    /// The values of the fields named `name` (any case), joined by ", ".
    subscript(_ name: String) -> String? {
        let values = fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking HTTP/1.1 client over one TCP connection that sends bytes exactly as given and
/// reads responses exactly as sent: what `URLSession` would hide (interim responses, hop-by-hop
/// fields, malformed requests) is what the proxy tests look at.
final class RawClient {
    private let fd: CInt
    private var buffer: [UInt8] = []
    private(set) var closed = false

    /// A connection to 127.0.0.1:`port`; reads wait at most `timeout`.
    init(port: UInt16, timeout: Int = 30) throws {
        fd = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw RawClientError.connect(errno)
        }
        var value = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends `text` held back (`MSG_MORE`), then ends the sending side: the bytes and the end of
    /// the stream leave in one segment.
    func sendThenHalfClose(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL) | CInt(MSG_MORE))
        }
        guard sent == bytes.count else { throw RawClientError.send(errno) }
        Glibc.shutdown(fd, CInt(SHUT_WR))
    }

    /// Sends `urgent` as urgent data (`MSG_OOB`: its last byte is the urgent one), held back,
    /// then `rest`.
    func sendUrgent(_ urgent: String, then rest: String) throws {
        let first = Array(urgent.utf8)
        let sent = first.withUnsafeBytes {
            Glibc.send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL) | CInt(MSG_OOB) | CInt(MSG_MORE))
        }
        guard sent == first.count else { throw RawClientError.send(errno) }
        try send(rest)
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw RawClientError.send(errno) }
            offset += sent
        }
    }

    /// The next response; `headOnly` for the answer to a HEAD request (no body follows).
    func response(headOnly: Bool = false) throws -> RawResponse {
        var interim: [(status: Int, fields: [(name: String, value: String)])] = []
        while true {
            let (status, fields) = try head()
            if (100..<200).contains(status) {
                interim.append((status, fields))
                continue
            }
            var response = RawResponse(status: status, fields: fields, body: [], interim: interim)
            let lengthValue = response["Content-Length"]
            if headOnly || status == 204 || status == 304 {
                return response
            } else if response["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
                response.body = try chunkedBody()
            } else if let lengthValue, let length = Int(lengthValue) {
                response.body = try bytes(length)
            } else {
                while try fill() {}
                response.body = buffer
                buffer = []
            }
            return response
        }
    }

    /// Reads until the server closes the connection; returns what arrived.
    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer = [] }
        return buffer
    }

    /// Reads and discards `count` body bytes as they arrive, without keeping them.
    func discard(_ count: Int) throws -> Int {
        var left = count
        while left > 0 {
            if buffer.isEmpty { guard try fill() else { break } }
            let taken = min(left, buffer.count)
            buffer.removeFirst(taken)
            left -= taken
        }
        return count - left
    }

    /// Reads until `count` heads have ended (each `CR LF CR LF`), without parsing them: the
    /// answers to pipelined HEAD requests, read as fast as they come. Returns how many ended
    /// before the server closed the connection.
    func skipHeads(_ count: Int) throws -> Int {
        let end: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
        var ended = 0
        var matched = 0
        while ended < count {
            if buffer.isEmpty { guard try fill() else { break } }
            for byte in buffer {
                matched = byte == end[matched] ? matched + 1 : (byte == end[0] ? 1 : 0)
                if matched == end.count {
                    ended += 1
                    matched = 0
                }
            }
            buffer = []
        }
        return ended
    }

    private func head() throws -> (Int, [(name: String, value: String)]) {
        while true {
            if let range = firstRange(of: [13, 10, 13, 10]) {
                let text = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                var lines = text.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                    throw RawClientError.malformed(text)
                }
                let fields = lines.compactMap { line -> (String, String)? in
                    guard let colon = line.firstIndex(of: ":") else { return nil }
                    return (
                        String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    )
                }
                return (status, fields)
            }
            guard try fill() else { throw RawClientError.closed }
        }
    }

    private func chunkedBody() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let line = try self.line()
            guard let size = Int(line.split(separator: ";").first ?? "", radix: 16) else {
                throw RawClientError.malformed(line)
            }
            if size == 0 {
                while try !self.line().isEmpty {}
                return body
            }
            body += try bytes(size)
            _ = try self.line()
        }
    }

    private func line() throws -> String {
        while true {
            if let range = firstRange(of: [13, 10]) {
                let text = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeFirst(range.upperBound)
                return text
            }
            guard try fill() else { throw RawClientError.closed }
        }
    }

    private func bytes(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { guard try fill() else { throw RawClientError.closed } }
        defer { buffer.removeFirst(count) }
        return Array(buffer[..<count])
    }

    private func firstRange(of pattern: [UInt8]) -> Range<Int>? {
        guard buffer.count >= pattern.count else { return nil }
        for start in 0...(buffer.count - pattern.count) where buffer[start] == pattern[0] {
            if Array(buffer[start..<(start + pattern.count)]) == pattern { return start..<(start + pattern.count) }
        }
        return nil
    }

    /// Receives more; `false` when the server closed the connection.
    @discardableResult
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw RawClientError.receive(errno) }
        if count == 0 {
            closed = true
            return false
        }
        buffer += chunk[..<count]
        return true
    }
}

enum RawClientError: Error {
    case connect(Int32), send(Int32), receive(Int32), closed, malformed(String)
}
