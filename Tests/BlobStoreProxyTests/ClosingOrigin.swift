import Foundation
import Glibc
import Synchronization

/// An origin that answers each connection's first request with the bytes `answer` gives for its
/// head, held back (`MSG_MORE`) and then closes the connection: the answer's last bytes and the
/// end of the stream arrive in one segment, which a proxy must read as both.
final class ClosingOrigin: Sendable {
    /// The port it listens on, on 127.0.0.1.
    let port: UInt16
    /// The connections it accepted.
    var connections: Int { accepted.load(ordering: .relaxed) }
    private let listener: CInt
    private let accepted = Atomic(0)

    init(answer: @escaping @Sendable (_ head: String) -> String) throws {
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
        // Weakly: the thread ends when the listener is shut down, at deinit.
        Thread.detachNewThread { [weak self] in
            while true {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else { return }
                self?.accepted.add(1, ordering: .relaxed)
                Thread.detachNewThread { Self.serve(fd, answer) }
            }
        }
    }

    deinit {
        Glibc.shutdown(listener, CInt(SHUT_RDWR))
        close(listener)
    }

    /// Reads one request (its head and a `Content-Length` body), answers it and closes `fd`.
    private static func serve(_ fd: CInt, _ answer: (String) -> String) {
        defer { close(fd) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            received += buffer[..<count]
            let text = String(decoding: received, as: UTF8.self)
            guard let end = text.range(of: "\r\n\r\n") else { continue }
            let head = String(text[..<end.lowerBound])
            let length =
                head.split(separator: "\r\n").lazy
                .filter { $0.lowercased().hasPrefix("content-length:") }
                .compactMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                .first ?? 0
            guard received.count >= text[..<end.upperBound].utf8.count + length else { continue }
            let bytes = Array(answer(head).utf8)
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL) | CInt(MSG_MORE)) }
            return
        }
    }
}
