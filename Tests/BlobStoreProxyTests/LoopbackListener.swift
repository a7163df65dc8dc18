import Foundation
import Glibc

/// A listening socket on 127.0.0.1 at a free port, for the test origins written on raw sockets
/// (``ClosingOrigin``, ``PausingOrigin``); each connection it accepts is served on a thread of its
/// own, until ``close()``.
final class LoopbackListener: Sendable {
    /// The port it listens on.
    let port: UInt16
    private let fd: CInt

    init() throws {
        let fd = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawClientError.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && Glibc.listen(fd, 64) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            throw RawClientError.connect(errno)
        }
        self.fd = fd
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// Serves each connection accepted from now on with `serve`, on a thread of its own that
    /// closes the connection when `serve` returns.
    func serveEach(_ serve: @escaping @Sendable (CInt) -> Void) {
        Thread.detachNewThread { [fd] in
            while true {
                let connection = accept(fd, nil, nil)
                guard connection >= 0 else { return }
                Thread.detachNewThread {
                    serve(connection)
                    Glibc.close(connection)
                }
            }
        }
    }

    /// Stops accepting.
    func close() {
        Glibc.shutdown(fd, CInt(SHUT_RDWR))
        Glibc.close(fd)
    }

    /// The next request head received on `fd` (without its empty line), taken from the front of
    /// `received`, reading more into it as needed; `nil` once the peer closes first.
    static func nextHead(_ fd: CInt, _ received: inout [UInt8]) -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = received.firstRange(of: Array("\r\n\r\n".utf8)) {
                let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
                received.removeFirst(end.upperBound)
                return head
            }
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            received += buffer[..<count]
        }
    }

    /// Sends all of `text` on `fd` with `flags` (`MSG_NOSIGNAL` added), as far as the peer takes it.
    static func send(_ text: String, to fd: CInt, flags: CInt = 0) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL) | flags)
            }
            guard sent > 0 else { return }
            offset += sent
        }
    }
}
