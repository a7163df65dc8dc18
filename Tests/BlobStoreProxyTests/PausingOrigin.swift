import Foundation
import Glibc

/// An origin on 127.0.0.1 that keeps its connections alive: `/big` answers `first` body bytes,
/// pauses for `pause`, then sends `rest`; any other path answers one byte, `y`, fresh for ten
/// minutes. The pause holds a proxy's task on the origin while its client does something.
final class PausingOrigin: Sendable {
    /// The port it listens on.
    var port: UInt16 { listener.port }
    private let listener: LoopbackListener

    init(first: Int, rest: Int, pause: Duration) throws {
        listener = try LoopbackListener()
        listener.serveEach { fd in
            var received: [UInt8] = []
            while let head = LoopbackListener.nextHead(fd, &received) {
                if head.contains(" /big ") {
                    LoopbackListener.send(
                        "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: \(first + rest)\r\n\r\n", to: fd)
                    LoopbackListener.send(String(repeating: "a", count: first), to: fd)
                    usleep(useconds_t(pause / .microseconds(1)))
                    LoopbackListener.send(String(repeating: "b", count: rest), to: fd)
                } else {
                    LoopbackListener.send(
                        "HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 1\r\n\r\ny", to: fd)
                }
            }
        }
    }

    deinit {
        listener.close()
    }
}
