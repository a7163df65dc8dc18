import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import HTTPTestServer
import Testing

/// `blobstore serve` as users run it: a process of its own.
@Suite("Caching proxy: the serve process")
struct ProxyProcessTests {
    /// The size of the large response: 2 GiB, or `BLOBSTORE_PROXY_LARGE_BYTES`.
    static let largeBytes =
        ProcessInfo.processInfo.environment["BLOBSTORE_PROXY_LARGE_BYTES"].flatMap(Int.init)
        ?? 2 << 30

    @Test("A 2 GiB response passes through with flat memory, every byte counted")
    func largeResponseWithFlatMemory() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let serve = try ServeProcess(
            store: scratch.child("store"), origin: URL(string: "http://127.0.0.1:\(origin.port)")!, in: scratch)
        let before = try serve.peakMemory()
        let client = try RawClient(port: serve.port, timeout: 120)
        try client.send("GET /large?cc=max-age%3D600&stream=\(Self.largeBytes) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.response(headOnly: true)
        #expect(head.status == 200)
        #expect(head["Content-Length"] == String(Self.largeBytes))
        #expect(head["Cache-Status"]?.contains("larger than") == true)
        let received = try client.discard(Self.largeBytes)
        #expect(received == Self.largeBytes)
        let peak = try serve.peakMemory()
        // Flat: what it needed to start, plus buffers of a few hundred KiB — far below the body.
        #expect(peak - before < 64 << 20, "peak \(peak) bytes, \(before) before the response")
        serve.terminate()
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test("--access-log appends a line per request to a file; a link to /dev/null serves the same, with no log")
    func accessLogFileAndNullDevice() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let file = scratch.child("access.log")
        let null = scratch.child("null")
        try FileManager.default.createSymbolicLink(atPath: null, withDestinationPath: "/dev/null")
        for (log, store) in [(file, "store-a"), (null, "store-b")] {
            let serve = try ServeProcess(
                store: scratch.child(store), origin: URL(string: "http://127.0.0.1:\(origin.port)")!, accessLog: log,
                in: scratch)
            for _ in 0..<2 {
                let client = try RawClient(port: serve.port)
                try client.send("GET /logged?cc=max-age%3D600&body=x HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try client.response()
                #expect(response.status == 200)
                #expect(Data(response.body) == Data("x".utf8))
            }
            serve.terminate()
            #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
        }
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.allSatisfy { $0.contains("\"GET /logged?cc=max-age%3D600&body=x HTTP/1.1\" 200 1") })
        let linkStatus = try FileManager.default.destinationOfSymbolicLink(atPath: null)
        #expect(linkStatus == "/dev/null", "the link is left as it was")
    }

    @Test("A 64 MiB response is stored from a spool file and served again from the store, with flat memory")
    func largeResponseStoredWithFlatMemory() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let store = scratch.child("store")
        let serve = try ServeProcess(
            store: store, origin: URL(string: "http://127.0.0.1:\(origin.port)")!, in: scratch)
        let size = 64 << 20
        let target = "/big?cc=max-age%3D600&stream=\(size)"
        let expected = TestServer.pattern(size)
        let before = try serve.peakMemory()
        for outcome in ["stored", "hit"] {
            let client = try RawClient(port: serve.port, timeout: 120)
            try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try client.response()
            #expect(response.status == 200)
            #expect(response["Cache-Status"]?.contains(outcome) == true, "\(response["Cache-Status"] ?? "")")
            #expect(response.body.count == size)
            #expect(Data(response.body) == expected)
        }
        // A range of the stored body, read from its file.
        let client = try RawClient(port: serve.port, timeout: 120)
        try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\nRange: bytes=5000000-5000999\r\n\r\n")
        let part = try client.response()
        #expect(part.status == 206)
        #expect(Data(part.body) == expected[5_000_000..<5_001_000])
        #expect(try await origin.counts(target).requests == 1)
        let peak = try serve.peakMemory()
        #expect(peak - before < 32 << 20, "peak \(peak) bytes, \(before) before the responses")
        #expect(try FileManager.default.contentsOfDirectory(atPath: store + "/tmp").isEmpty, "a spool file left")
        serve.terminate()
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test("With --chunk-threshold a large body is stored as chunks, and hits and ranges are served from its chunks")
    func largeResponseStoredAsChunks() async throws {
        let served = try ChunkingServe()
        defer { served.cleanup() }
        let (origin, serve, store) = (served.origin, served.serve, served.store)
        let size = 24 << 20 + 12345
        let target = "/chunked?cc=max-age%3D600&stream=\(size)"
        let expected = TestServer.pattern(size)
        func get(_ fields: String = "") throws -> RawResponse { try served.get(target, fields) }
        #expect(try get()["Cache-Status"]?.contains("stored") == true)
        // Ranges first, then the whole body: each read from the chunks that hold it.
        for (first, last) in [(5_000_000, 5_000_999), (0, 0), (size - 100, size - 1), (1 << 20, 3 << 20)] {
            let part = try get("Range: bytes=\(first)-\(last)\r\n")
            #expect(part.status == 206)
            #expect(part["Cache-Status"]?.contains("hit") == true)
            #expect(part["Content-Range"] == "bytes \(first)-\(last)/\(size)")
            #expect(Data(part.body) == expected[first...last])
        }
        let whole = try get()
        #expect(whole["Cache-Status"]?.contains("hit") == true && whole.body.count == size)
        #expect(Data(whole.body) == expected)
        #expect(try await origin.counts(target).requests == 1)
        serve.terminate()
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
        let chunks = try withStore(store) { try $0.chunkStats() }
        #expect(chunks.chunkedValues == 1 && chunks.chunkedBytes == UInt64(size))
        // The origin's body repeats every 64 KiB: its chunks repeat too.
        #expect(chunks.distinctChunkBytes < UInt64(size) / 4, "\(chunks)")
    }

    @Test("A chunked body is answered whole after a 304 that removes its entry, and a damaged one is a miss")
    func chunkedBodiesRemovedOrDamagedAreAnsweredWhole() async throws {
        let served = try ChunkingServe()
        defer { served.cleanup() }
        let (origin, serve, store) = (served.origin, served.serve, served.store)
        let size = 4 << 20
        let expected = TestServer.pattern(size)
        func get(_ target: String, _ fields: String = "") throws -> RawResponse { try served.get(target, fields) }
        // The 304 says no-store: the stored entry is removed, after its body was sent.
        let revalidated = "/r?cc=max-age%3D600&etag=%22v1%22&cc304=no-store&stream=\(size)"
        #expect(try get(revalidated)["Cache-Status"]?.contains("stored") == true)
        let again = try get(revalidated, "Cache-Control: max-age=0\r\n")
        #expect(again.status == 200 && Data(again.body) == expected, "\(again.status) \(again.body.count) bytes")
        #expect(try await origin.counts(revalidated).requests == 2)
        // Every chunk needle of the packs damaged: the next request finds its body damaged before
        // sending anything, and is answered from the origin.
        let damaged = "/d?cc=max-age%3D600&stream=\(size)"
        #expect(try get(damaged)["Cache-Status"]?.contains("stored") == true)
        try damageEveryPack(ofStoreAt: store)
        let miss = try get(damaged)
        #expect(miss.status == 200 && Data(miss.body) == expected)
        #expect(miss["Cache-Status"]?.contains("hit") == false, "\(miss["Cache-Status"] ?? "")")
        #expect(try await origin.counts(damaged).requests == 2)
        serve.terminate()
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test("Clients that go away in the middle of a body sent from a stored file leave the server serving")
    func clientsGoingAwayDuringAFileBody() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let serve = try ServeProcess(
            store: scratch.child("store"), origin: URL(string: "http://127.0.0.1:\(origin.port)")!, in: scratch)
        // Above the 1 MiB served from memory: sent from the stored file (sendfile), where a closed
        // connection raises SIGPIPE unless the server ignores it.
        let size = 8 << 20
        let request = "GET /gone?cc=max-age%3D600&stream=\(size) HTTP/1.1\r\nHost: x\r\n\r\n"
        let first = try RawClient(port: serve.port, timeout: 120)
        try first.send(request)
        #expect(try first.response().body.count == size)
        for _ in 0..<5 {
            let leaving = try RawClient(port: serve.port, timeout: 120)
            try leaving.send(request)
            let head = try leaving.response(headOnly: true)
            #expect(head["Cache-Status"]?.contains("hit") == true)
        }  // each closes with most of the body unread
        try await Task.sleep(for: .milliseconds(200))
        let last = try RawClient(port: serve.port, timeout: 120)
        try last.send(request)
        let response = try last.response()
        #expect(response["Cache-Status"]?.contains("hit") == true)
        #expect(Data(response.body) == TestServer.pattern(size))
        serve.terminate()
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
    }

    @Test("SIGTERM lets the response in flight finish, then the process exits 0")
    func gracefulShutdown() async throws {
        let origin = try TestServer()
        defer { origin.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        // The origin may take as long as the test needs to release it: no origin timeout here.
        let serve = try ServeProcess(
            store: scratch.child("store"), origin: URL(string: "http://127.0.0.1:\(origin.port)")!,
            extra: ["--origin-timeout", "300s"], in: scratch)
        let client = try RawClient(port: serve.port, timeout: 300)
        // The origin holds the response until released: the request is in flight for as long as
        // the test needs, however loaded the machine.
        let target = "/slow?hold=1&size=1000&cc=max-age%3D600"
        try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")
        while try await origin.counts(target).requests == 0 { try await Task.sleep(for: .milliseconds(20)) }
        serve.terminate()
        let terminated = ContinuousClock.now
        // The shutdown has begun once the listener refuses connections (ECONNREFUSED, not a
        // connection that failed some other way on a loaded machine).
        while true {
            do {
                _ = try RawClient(port: serve.port)
            } catch RawClientError.connect(let code) where code == ECONNREFUSED {
                break
            } catch {}
            try await Task.sleep(for: .milliseconds(20))
        }
        let refusedAfter = ContinuousClock.now - terminated
        try await origin.release()
        let answer = try client.response()
        #expect(answer.status == 200)
        #expect(answer.body.count == 1000)
        #expect(answer["Connection"] == "close", "refused \(refusedAfter) after SIGTERM; \(answer.fields)")
        #expect(try serve.waitForExit(timeout: .seconds(30)) == 0)
    }
}

/// `blobstore serve --chunk-threshold 1M` in front of a test server, with a store and a scratch
/// directory of its own.
private struct ChunkingServe {
    let origin: TestServer
    let scratch = TemporaryDirectory()
    let serve: ServeProcess
    var store: String { scratch.child("store") }

    init() throws {
        origin = try TestServer()
        serve = try ServeProcess(
            store: scratch.child("store"), origin: URL(string: "http://127.0.0.1:\(origin.port)")!,
            extra: ["--chunk-threshold", "1M"], in: scratch)
    }

    /// `GET target` with `fields` (`Name: value` lines, each ending in CRLF) on a new connection.
    func get(_ target: String, _ fields: String = "") throws -> RawResponse {
        let client = try RawClient(port: serve.port, timeout: 120)
        try client.send("GET \(target) HTTP/1.1\r\nHost: x\r\n\(fields)\r\n")
        return try client.response()
    }

    /// Stops the origin and removes the scratch directory (the test stops the server first).
    func cleanup() {
        origin.stop()
        scratch.cleanup()
    }
}
