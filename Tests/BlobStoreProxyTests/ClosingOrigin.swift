import Foundation
import Glibc
import Synchronization

/// An origin that answers each connection's first request with the bytes `answer` gives for its
/// head, held back (`MSG_MORE`), and then closes the connection: the answer's last bytes and the
/// end of the stream arrive in one segment, which a proxy must read as both.
final class ClosingOrigin: Sendable {
    /// The port it listens on, on 127.0.0.1.
    var port: UInt16 { listener.port }
    /// The connections it accepted.
    var connections: Int { accepted.load(ordering: .relaxed) }
    private let listener: LoopbackListener
    private let accepted = Atomic(0)

    init(answer: @escaping @Sendable (_ head: String) -> String) throws {
        listener = try LoopbackListener()
        // Weakly: the listener, and its thread, end at deinit.
        listener.serveEach { [weak self] fd in
            self?.accepted.add(1, ordering: .relaxed)
            var received: [UInt8] = []
            guard let head = LoopbackListener.nextHead(fd, &received) else { return }
            let length =
                head.split(separator: "\r\n").lazy
                .filter { $0.lowercased().hasPrefix("content-length:") }
                .compactMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                .first ?? 0
            var buffer = [UInt8](repeating: 0, count: 4096)
            while received.count < length {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { return }
                received += buffer[..<count]
            }
            LoopbackListener.send(answer(head), to: fd, flags: CInt(MSG_MORE))
        }
    }

    deinit {
        listener.close()
    }
}
