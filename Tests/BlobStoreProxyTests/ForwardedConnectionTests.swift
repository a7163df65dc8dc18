import BlobStore
import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

/// After a request that went to the origin, the connection's task waits on the loop for the
/// next request itself (`ProxyServer.nextRequestOnTask`) instead of giving the connection back
/// and a new task being made for the next one: the held connection's timeouts, its hits on the
/// loop and the proxy's stop must hold there too.
@Suite("Caching proxy: a task that waits for its connection's next request")
struct ForwardedConnectionTests {
    @Test("Misses, a hit and misses again on one connection, each answered")
    func missesAndAHitOnOneConnection() async throws {
        try await withProxy({ $0.idleTimeout = .seconds(20) }) { proxy in
            let client = try proxy.client()
            for (index, target) in ["/f1?cc=no-store&body=a", "/f2?cc=no-store&body=b"].enumerated() {
                try client.send(ProxyHarness.request("GET", target))
                #expect(try client.response().text == ["a", "b"][index])
            }
            let cached = "/f3?cc=max-age%3D600&body=c"
            try client.send(ProxyHarness.request("GET", cached))
            #expect(try client.response()["Cache-Status"]?.contains("stored") == true)
            try client.send(ProxyHarness.request("GET", cached))
            let hit = try client.response()
            #expect(hit.text == "c")
            #expect(hit["Cache-Status"]?.contains("hit") == true)
            try client.send(ProxyHarness.request("GET", "/f1?cc=no-store&body=a"))
            #expect(try client.response().text == "a")
            #expect(try await proxy.originRequests("/f1?cc=no-store&body=a") == 2)
            #expect(try await proxy.originRequests(cached) == 1)
        }
    }

    @Test("A connection idle after a miss is closed at the idle timeout, not before")
    func idleAfterAMiss() async throws {
        try await withProxy({ $0.idleTimeout = .seconds(1) }) { proxy in
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/idle?cc=no-store&body=x"))
            #expect(try client.response().text == "x")
            let answered = ContinuousClock.now
            #expect(try client.readToEnd().isEmpty)
            let waited = ContinuousClock.now - answered
            #expect(waited >= .milliseconds(900), "\(waited)")
            #expect(waited < .seconds(10), "\(waited)")
        }
    }

    @Test("A head begun after a miss and not finished within the header timeout is answered 408")
    func slowHeadAfterAMiss() async throws {
        try await withProxy({
            $0.idleTimeout = .seconds(20)
            $0.headerTimeout = .seconds(1)
        }) { proxy in
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/slowafter?cc=no-store&body=x"))
            #expect(try client.response().text == "x")
            try client.send("GET /never HTTP/1.1\r\nHost: proxy.test\r\n")
            let begun = ContinuousClock.now
            #expect(try client.response().status == 408)
            // At the header timeout, not at the idle timeout.
            #expect(ContinuousClock.now - begun < .seconds(10))
            #expect(try await proxy.originRequests("/never") == 0)
        }
    }

    @Test("After a miss, pipelined hits the client reads late are all answered, and the connection closes at its end")
    func pipelinedHitsReadLateAfterAMiss() async throws {
        // The task that waited after the miss answers hits until the socket is full, then gives
        // the connection back to the loop, which may give it to another task at once: the first
        // must not flush it too (two tasks waiting on one socket orphaned one, and the
        // connection was never closed).
        try await withProxy({ $0.idleTimeout = .seconds(60) }) { proxy in
            let target = "/late?cc=max-age%3D600&size=262144"
            let stored = try proxy.get(target)
            #expect(stored.body.count == 262_144)
            let client = try proxy.client(timeout: 15)
            try client.send(ProxyHarness.request("GET", "/late-miss?cc=no-store&body=m"))
            #expect(try client.response().text == "m")
            usleep(100_000)
            try client.send(String(repeating: ProxyHarness.request("GET", target), count: 64))
            usleep(300_000)
            for index in 0..<64 {
                let response = try client.response()
                #expect(response.status == 200 && response.body == stored.body, "answer \(index)")
            }
            try client.sendThenHalfClose("")
            #expect(try client.readToEnd().isEmpty)
            #expect(try Self.openConnections(proxy, becoming: 0, within: .seconds(5)) == 0)
        }
    }

    @Test("A connection whose pipelined requests a task answers without waiting does not keep its loop from the others")
    func pipelinedHeadsLeaveTheLoopToOthers() async throws {
        // HEADs of a body kept as chunks are answered on a task (the chunks located, none read),
        // and each answer leaves at once: a client whose requests all wait in the socket already
        // never makes the task wait. It must still let the loop's other connections be served
        // meanwhile (before the task took turns, the hit on the hog's loop was answered after
        // all 1,000 HEADs).
        var chunked = fast
        chunked.chunkThreshold = 1 << 20
        try await withProxy({ $0.idleTimeout = .seconds(60) }, store: chunked) { proxy in
            let large = "/fair-large?cc=max-age%3D600&size=2097152"
            #expect(try proxy.get(large).body.count == 2_097_152)
            let small = "/fair-small?cc=max-age%3D600&body=s"
            #expect(try proxy.get(small).text == "s")
            // The HEADs arrive while the connection's task waits for the origin's answer to the
            // first request: once it has sent that answer, they are all there to be read.
            let count = 1_000
            let hog = try proxy.client(timeout: 120)
            try hog.send(
                ProxyHarness.request("GET", "/fair-wait?cc=no-store&delay=0.3&body=w")
                    + String(repeating: ProxyHarness.request("HEAD", large), count: count))
            #expect(try hog.response().text == "w")
            let answered = Atomic<Int>(-1)
            nonisolated(unsafe) let reader = hog
            Thread { answered.store((try? reader.skipHeads(count)) ?? 0, ordering: .sequentiallyConsistent) }.start()
            // Connections are dealt to the loops in turn: one per loop, the hog's among them.
            let others = try (0...ProcessInfo.processInfo.activeProcessorCount).map { _ in try proxy.client() }
            for (index, other) in others.enumerated() {
                try other.send(ProxyHarness.request("GET", small))
                #expect(try other.response().text == "s", "connection \(index)")
                #expect(
                    answered.load(ordering: .sequentiallyConsistent) == -1,
                    "connection \(index) was answered only after the \(count) pipelined HEADs")
            }
            while answered.load(ordering: .sequentiallyConsistent) == -1 { usleep(10_000) }
            #expect(answered.load(ordering: .sequentiallyConsistent) == count)
        }
    }

    /// The proxy's open client connections (`blobstore_proxy_connections` on its metrics port),
    /// read until they are `expected` or `limit` has passed.
    private static func openConnections(_ proxy: ProxyHarness, becoming expected: Int, within limit: Duration) throws
        -> Int
    {
        let started = ContinuousClock.now
        var open = -1
        while ContinuousClock.now - started < limit {
            let metrics = try RawClient(port: try #require(proxy.server.metricsPort))
            try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            for line in try metrics.response().text.split(separator: "\n")
            where line.hasPrefix("blobstore_proxy_connections ") {
                open = Int(line.split(separator: " ")[1]) ?? -1
            }
            if open == expected { break }
            usleep(50_000)
        }
        return open
    }

    @Test("A proxy that stops closes a connection idle after a miss at once, not at the idle timeout")
    func stopWithAConnectionIdleAfterAMiss() async throws {
        let proxy = try ProxyHarness({
            $0.idleTimeout = .seconds(60)
            $0.shutdownGrace = .seconds(30)
        })
        let client = try proxy.client()
        try client.send(ProxyHarness.request("GET", "/stopping?cc=no-store&body=x"))
        #expect(try client.response().text == "x")
        let stopping = ContinuousClock.now
        proxy.stop()
        let stopped = ContinuousClock.now - stopping
        #expect(stopped < .seconds(10), "\(stopped)")
        #expect(try client.readToEnd().isEmpty)
    }
}
