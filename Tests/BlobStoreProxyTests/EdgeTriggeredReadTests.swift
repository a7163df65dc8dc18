import Foundation
import Testing

/// The event loops' sockets are edge-triggered: each arrival is reported once, and a read that
/// took less than it asked for is taken to have emptied the socket. What arrives behind the last
/// bytes in the same report (an end of stream, urgent data) must still be read.
@Suite("Caching proxy: edge-triggered reads")
struct EdgeTriggeredReadTests {
    @Test("A client that half-closes with its request (a miss) is closed once answered, not at the idle timeout")
    func halfClosedClientAfterAMiss() async throws {
        try await withProxy({ $0.idleTimeout = .seconds(20) }) { proxy in
            let client = try proxy.client()
            // The loop holds the connection, and has read it once, before the bytes arrive.
            usleep(100_000)
            try client.sendThenHalfClose(ProxyHarness.request("GET", "/half?body=x"))
            #expect(try client.response().text == "x")
            #expect(try client.closesEmpty(within: .seconds(10)))
        }
    }

    @Test("A client that half-closes with its request (a hit in memory) is closed once answered")
    func halfClosedClientAfterAHit() async throws {
        try await withProxy({ $0.idleTimeout = .seconds(20) }) { proxy in
            let target = "/halfhit?cc=max-age%3D600&body=y"
            #expect(try proxy.get(target).text == "y")
            #expect(try proxy.get(target)["Cache-Status"]?.contains("hit") == true)
            let client = try proxy.client()
            usleep(100_000)
            try client.sendThenHalfClose(ProxyHarness.request("GET", target))
            #expect(try client.response().text == "y")
            #expect(try client.closesEmpty(within: .seconds(10)))
        }
    }

    @Test("A client's half-close that arrives while its task waits for the origin is read when the task gives it back")
    func halfCloseDuringAnOriginWait() async throws {
        let origin = try PausingOrigin(first: 8 << 20, rest: 1000, pause: .seconds(2))
        try await withProxy({
            $0.origin = URL(string: "http://127.0.0.1:\(origin.port)")!
            $0.idleTimeout = .seconds(20)
        }) { proxy in
            #expect(try proxy.get("/small").text == "y")
            #expect(try proxy.get("/small")["Cache-Status"]?.contains("hit") == true)
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/big"))
            // The proxy fills the client's socket and waits to write; the next request is
            // reported then, so the connection may have bytes when it is given back.
            usleep(500_000)
            try client.send(ProxyHarness.request("GET", "/small"))
            _ = try client.response(headOnly: true)
            #expect(try client.discard(8 << 20) == 8 << 20)
            // The task now waits for the origin's pause: the half-close is kept by the loop.
            usleep(300_000)
            try client.sendThenHalfClose("")
            #expect(try client.discard(1000) == 1000)
            #expect(try client.response().text == "y")
            #expect(try client.closesEmpty(within: .seconds(10)))
        }
    }

    @Test("An origin that sends nothing within the origin timeout is answered 504 once, not retried")
    func silentOriginTimesOut() async throws {
        try await withProxy({ $0.originTimeout = .seconds(1) }) { proxy in
            // A kept-alive connection to the origin, reused by the next request.
            let warm = try proxy.get("/warm?cc=no-store")
            #expect(warm.status == 200)
            let started = ContinuousClock.now
            let silent = try proxy.get("/silent?delay=4&cc=no-store")
            let waited = ContinuousClock.now - started
            #expect(silent.status == 504)
            #expect(waited < .milliseconds(1900))
        }
    }

    @Test("An origin body delimited by the close, whose last bytes carry the close, ends at once")
    func closeDelimitedOriginBody() async throws {
        let origin = try ClosingOrigin { _ in "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\n\r\nuntil-close" }
        try await withProxy({
            $0.origin = URL(string: "http://127.0.0.1:\(origin.port)")!
            $0.originTimeout = .seconds(20)
        }) { proxy in
            let client = try proxy.client()
            let started = ContinuousClock.now
            try client.send(ProxyHarness.request("GET", "/close-delimited"))
            let response = try client.response()
            #expect(response.status == 200 && response.text == "until-close")
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }

    @Test("A POST after the origin closed the connection it used last goes on a new connection")
    func postAfterTheOriginClosed() async throws {
        let origin = try ClosingOrigin { head in
            head.hasPrefix("POST")
                ? "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\npost"
                : "HTTP/1.1 200 OK\r\nCache-Control: no-store\r\nContent-Length: 3\r\n\r\nget"
        }
        try await withProxy({ $0.origin = URL(string: "http://127.0.0.1:\(origin.port)")! }) { proxy in
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/first"))
            #expect(try client.response().text == "get")
            // The origin said nothing of closing, and closed: a POST cannot be sent twice, so the
            // connection must be known closed before it is used.
            usleep(100_000)
            try client.send(ProxyHarness.request("POST", "/second", body: "data"))
            let response = try client.response()
            #expect(response.status == 200 && response.text == "post")
            #expect(origin.connections == 2)
        }
    }

    @Test("A request head with an urgent byte in it is read past the urgent mark")
    func urgentByteInAHead() async throws {
        try await withProxy({ $0.headerTimeout = .seconds(20) }) { proxy in
            let client = try proxy.client()
            usleep(100_000)
            try client.sendUrgent("GET /urgent?body=u HTTP/1.1\r\nHost: proxy.test\r\nX-A: 1Z", then: "\r\n\r\n")
            let started = ContinuousClock.now
            let response = try client.response()
            #expect(response.status == 200)
            #expect(ContinuousClock.now - started < .seconds(10))
        }
    }
}

extension RawClient {
    /// Whether the peer closes the connection within `limit`, sending nothing more.
    fileprivate func closesEmpty(within limit: Duration) throws -> Bool {
        let started = ContinuousClock.now
        return try readToEnd().isEmpty && ContinuousClock.now - started < limit
    }
}
