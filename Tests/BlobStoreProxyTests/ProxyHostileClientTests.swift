import BlobStoreTestKit
import Foundation
import Testing

/// Clients that try to hold, confuse or smuggle past the proxy.
@Suite("Caching proxy: hostile clients")
struct ProxyHostileClientTests {
    /// The status the proxy answers `request` with, and whether it closed the connection after.
    private func answer(_ proxy: ProxyHarness, _ request: String) throws -> (Int, closed: Bool) {
        let client = try proxy.client()
        try client.send(request)
        let response = try client.response()
        _ = try client.readToEnd()
        return (response.status, client.closed)
    }

    @Test("Conflicting or malformed framing is 400 and closes the connection (no request smuggling)")
    func smuggling() async throws {
        try await withProxy { proxy in
            let cases = [
                "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
                "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nContent-Length: 5\r\n\r\nabcde",
                "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: -4\r\n\r\n",
                "POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 4 4\r\n\r\n",
                "GET /s HTTP/1.1\r\nHost: x\r\nX-A: b\r\n folded: c\r\n\r\n",
                "GET /s HTTP/1.1\r\nHost : x\r\n\r\n",
                "GET /s HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
                "GET /s HTTP/1.1\r\n\r\n",
                "GET /s  HTTP/1.1\r\nHost: x\r\n\r\n",
                "GET /s HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n",
                "POST /s HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            ]
            for request in cases {
                let (status, closed) = try answer(proxy, request)
                #expect(status == 400, "\(request.debugDescription)")
                #expect(closed, "\(request.debugDescription)")
            }
            #expect(try answer(proxy, "POST /s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n").0 == 501)
            #expect(try answer(proxy, "GET /s HTTP/2.0\r\nHost: x\r\n\r\n").0 == 505)
            #expect(try await proxy.originRequests("/s") == 0)
        }
    }

    @Test("A head over the size or field limit is 431")
    func hugeHeads() async throws {
        try await withProxy({ $0.maxHeaderFields = 20 }) { proxy in
            let huge = "GET /h HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n"
            let (hugeStatus, _) = try answer(proxy, huge)
            #expect(hugeStatus == 431)
            let many = (0..<30).map { "X-F\($0): v" }
            let (manyStatus, _) = try answer(proxy, ProxyHarness.request("GET", "/h", many))
            #expect(manyStatus == 431)
            let fine = try proxy.get("/h?body=fine")
            #expect(fine.text == "fine")
        }
    }

    @Test("A client that pipelines hits and does not read holds up only itself, and gets every answer when it reads")
    func pipelinedHitsNotRead() async throws {
        try await withProxy { proxy in
            let target = "/unread?cc=max-age%3D600&size=262144"
            let stored = try proxy.get(target)
            #expect(stored.status == 200 && stored.body.count == 262_144)
            // 64 answers of 256 KiB are more than the sockets' buffers take: what the event loop
            // could not send at once goes on with the connection to a thread that waits for it.
            let unread = try proxy.client()
            try unread.send(String(repeating: ProxyHarness.request("GET", target), count: 64))
            // A sleep that keeps this thread: after a `Task.sleep`, a loaded parallel run resumed
            // the test over a minute later, past the proxy's 60 s send timeout for the unread
            // client.
            usleep(300_000)
            // New connections land on every loop, round robin; each is answered meanwhile.
            for _ in 0..<8 {
                let hit = try proxy.get(target)
                #expect(hit.status == 200 && hit.body == stored.body && hit["Cache-Status"]?.contains("hit") == true)
            }
            for index in 0..<64 {
                let response = try unread.response()
                #expect(response.status == 200 && response.body == stored.body, "answer \(index)")
            }
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("Each request has one access log line: hits answered by an event loop, misses and rejections")
    func accessLogLines() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.child("access.log")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let log = try #require(FileHandle(forWritingAtPath: path))
        let proxy = try ProxyHarness(accessLog: log)
        defer { proxy.stop() }
        let target = "/logged?cc=max-age%3D600&body=x"
        #expect(try proxy.get(target).status == 200)
        let client = try proxy.client()
        try client.send(String(repeating: ProxyHarness.request("GET", target), count: 3))
        for _ in 0..<3 { #expect(try client.response().status == 200) }
        let (status, _) = try answer(proxy, "GET /s HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n")
        #expect(status == 400)
        // The loops write their lines before they wait again: within moments of the answers.
        var lines: [String] = []
        for _ in 0..<100 {
            lines = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
                .split(separator: "\n").map(String.init)
            if lines.count >= 5 { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.filter { $0.contains("\"GET \(target) HTTP/1.1\" 200 1 ") }.count == 4, "\(lines)")
        #expect(lines.filter { $0.contains("fwd=uri-miss") }.count == 1, "\(lines)")
        #expect(lines.filter { $0.contains("; hit; ttl=") }.count == 3, "\(lines)")
        #expect(lines.filter { $0.contains("\" 400 ") && $0.contains("rejected") }.count == 1, "\(lines)")
    }

    @Test("A head sent a byte at a time slower than the header timeout is 408; others are served meanwhile")
    func slowHeaders() async throws {
        try await withProxy({ $0.headerTimeout = .seconds(2) }) { proxy in
            let slow = try proxy.client()
            let started = ContinuousClock.now
            try slow.send("GET /slow HTTP/1.1\r\n")
            var status: Int?
            for _ in 0..<40 {
                do {
                    try slow.send("X-Drip: 1\r\n")
                } catch {
                    break
                }
                #expect(try proxy.get("/other?body=served").text == "served")
                try await Task.sleep(for: .milliseconds(250))
                if ContinuousClock.now - started > .seconds(3) { break }
            }
            let response = try? slow.response()
            status = response?.status
            #expect(status == 408)
            #expect(try await proxy.originRequests("/slow") == 0)
        }
    }

    @Test("A connection over the limit is answered 503")
    func connectionLimit() async throws {
        try await withProxy({ $0.maxConnections = 2 }) { proxy in
            let first = try proxy.client()
            let second = try proxy.client()
            try first.send(ProxyHarness.request("GET", "/a?body=1"))
            try second.send(ProxyHarness.request("GET", "/b?body=2"))
            _ = try first.response()
            _ = try second.response()
            let third = try proxy.client()
            try third.send(ProxyHarness.request("GET", "/c"))
            #expect(try third.response().status == 503)
        }
    }
}
