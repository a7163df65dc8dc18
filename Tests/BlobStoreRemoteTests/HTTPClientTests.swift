import BlobStore
import BlobStoreNet
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStoreRemote

/// A server for one connection that reads the request, then sends `pieces` in order, each after
/// its pause, and closes the connection.
private final class PacedServer: Sendable {
    let port: UInt16
    private let finished = DispatchSemaphore(value: 0)

    init(_ pieces: [(pause: Duration, bytes: String)]) {
        let (listener, port) = LocalPorts.listening()
        self.port = port
        let finished = finished
        Thread.detachNewThread {
            defer {
                close(listener)
                finished.signal()
            }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            guard recv(client, &buffer, buffer.count, 0) > 0 else { return }
            for piece in pieces {
                let (seconds, attoseconds) = piece.pause.components
                usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
                let bytes = Array(piece.bytes.utf8)
                _ = send(client, bytes, bytes.count, CInt(MSG_NOSIGNAL))
            }
            shutdown(client, CInt(SHUT_WR))
        }
    }

    /// Waits until the server has closed its connection.
    func wait() { finished.wait() }
}

/// The package's HTTP/1.1 client (`HTTPClient`, `HTTPExchange`) on its own.
@Suite("HTTP/1.1 client")
struct HTTPClientTests {
    private func client(_ reply: HTTPClient.ReplyDeadline) -> HTTPClient {
        HTTPClient(
            connecting: ConnectTimeouts(nameResolution: .seconds(1), connect: .seconds(1), handshake: .seconds(1)),
            reply: reply, peer: { _ in .remote("test") },
            makeTLS: { throw BlobStoreError(.invalidArgument, "no TLS in this test") })
    }

    private func get(_ port: UInt16) -> HTTPClientRequest {
        HTTPClientRequest(method: "GET", url: URL(string: "http://127.0.0.1:\(port)/x")!)
    }

    @Test("An idle deadline bounds each wait: for the head, then for the body, each in full")
    func idleDeadlineRestartsAfterTheHead() throws {
        let pieces: [(pause: Duration, bytes: String)] = [
            (.milliseconds(600), "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"), (.milliseconds(600), "hello"),
        ]
        let idle = PacedServer(pieces)
        let exchange = try client(.idle(.milliseconds(1000))).start(get(idle.port))
        #expect(try exchange.readBody(maximum: 100) == Data("hello".utf8))
        idle.wait()
        // A total deadline of the same length covers both waits together, and ends first.
        let total = PacedServer(pieces)
        #expect {
            let exchange = try client(.total(.milliseconds(1000))).start(get(total.port))
            _ = try exchange.readBody(maximum: 100)
        } throws: { error in
            (error as? BlobStoreError)?.errno == ETIMEDOUT
        }
        total.wait()
    }

    @Test("A head whose body cannot be framed still gives its status; reading the body throws")
    func brokenFramingThrowsWhenTheBodyIsRead() throws {
        let server = PacedServer([(.zero, "HTTP/1.1 404 Not Found\r\nContent-Length: 5, 6\r\n\r\nnope")])
        let exchange = try client(.total(.seconds(2))).start(get(server.port))
        #expect(exchange.head.status == 404)
        #expect(throws: BlobStoreError.self) { _ = try exchange.readBody(maximum: 100) }
        server.wait()
    }
}
