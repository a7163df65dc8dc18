import Foundation
import Glibc

/// An origin on 127.0.0.1 that keeps its connections alive: `/big` answers `first` body bytes,
/// pauses for `pause`, then sends `rest`; any other path answers one byte, `y`, fresh for ten
/// minutes. The pause holds a proxy's task on the origin while its client does something.
final class PausingOrigin: Sendable {
    /// The port it listens on.
    let port: UInt16
    private let listener: CInt

    init(first: Int, rest: Int, pause: Duration) throws {
        let listener = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw RawClientError.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && Glibc.listen(listener, 64) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            throw RawClientError.connect(errno)
        }
        self.listener = listener
        self.port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread {
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                Thread.detachNewThread { Self.serve(fd, first: first, rest: rest, pause: pause) }
            }
        }
    }

    deinit {
        Glibc.shutdown(listener, CInt(SHUT_RDWR))
        close(listener)
    }

    /// Answers the requests (heads only) on `fd` until the peer closes it.
    private static func serve(_ fd: CInt, first: Int, rest: Int, pause: Duration) {
        defer { close(fd) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[..<count]
            while let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                received.removeFirst(end.upperBound)
                if head.contains(" /big ") {
                    sendAll(fd, "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: \(first + rest)\r\n\r\n")
                    sendAll(fd, String(repeating: "a", count: first))
                    Thread.sleep(
                        forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
                    sendAll(fd, String(repeating: "b", count: rest))
                } else {
                    sendAll(fd, "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 1\r\n\r\ny")
                }
            }
        }
    }

    private static func sendAll(_ fd: CInt, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}
