import BlobStore
import BlobStoreNet
import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStoreRemote

/// A server that answers every connection with fixed bytes (after reading the request): a
/// hostile or broken Redis or HTTP server. With `keepOpen` the connection stays open after the
/// reply, so that a client waiting for more than it should shows up as a timeout; otherwise it
/// is closed.
///
/// Call ``stop()`` (`defer { server.stop() }`): it ends the accept thread before the listening
/// descriptor is closed, so the thread never accepts on a reused descriptor number.
final class CannedServer: Sendable {
    let port: UInt16
    private let listener: CInt
    private let shared = Shared()

    /// What the accept thread shares with ``stop()``.
    private final class Shared: Sendable {
        let clients = Mutex<(stopped: Bool, open: [CInt], accepted: Int)>((false, [], 0))
        let finished = DispatchSemaphore(value: 0)
    }

    /// How many connections it accepted.
    var connections: Int { shared.clients.withLock { $0.accepted } }

    convenience init(reply: Data, keepOpen: Bool = false) {
        self.init(replies: [reply], keepOpen: keepOpen)
    }

    /// Answers the requests of each connection with `replies`, one each, in order.
    convenience init(replies: [Data], keepOpen: Bool = false) {
        self.init(keepOpen: keepOpen) { _ in replies }
    }

    /// Answers the requests of each connection with the replies `makeReplies` gives for the
    /// server's port (a cluster's topology names it), one each, in order.
    init(keepOpen: Bool = false, replies makeReplies: (UInt16) -> [Data]) {
        let (listener, port) = LocalPorts.listening()
        self.listener = listener
        self.port = port
        let replies = makeReplies(port)
        let shared = shared
        Thread.detachNewThread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 {
                    if errno == EINTR { continue }
                    break
                }
                let stopping = shared.clients.withLock { state in
                    state.accepted += 1
                    state.open.append(client)
                    return state.stopped  // stop() may have shut the open clients down already
                }
                if stopping { break }
                var buffer = [UInt8](repeating: 0, count: 65_536)
                for reply in replies {
                    guard recv(client, &buffer, buffer.count, 0) > 0 else { break }
                    reply.withUnsafeBytes { raw in _ = send(client, raw.baseAddress, raw.count, CInt(MSG_NOSIGNAL)) }
                }
                if !keepOpen {
                    shared.clients.withLock { state in
                        state.open.removeAll { $0 == client }
                        shutdown(client, CInt(SHUT_WR))
                        close(client)
                    }
                }
            }
            shared.finished.signal()
        }
    }

    /// Stops accepting, wakes the accept thread wherever it waits (`accept`, or `recv` on a client
    /// that sends nothing more), waits for it to end, then closes every descriptor.
    func stop() {
        let first = shared.clients.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        shutdown(listener, CInt(SHUT_RDWR))  // wakes the blocked accept (EINVAL)
        shared.clients.withLock { state in
            for client in state.open { shutdown(client, CInt(SHUT_RDWR)) }
        }
        shared.finished.wait()
        close(listener)
        for client in shared.clients.withLock({ $0.open }) { close(client) }
    }

    deinit { stop() }
}

@Suite("Protocols and hostile replies")
struct ProtocolTests {
    private func redisReply(_ text: String, keepOpen: Bool = false) throws -> (RedisBackend, CannedServer) {
        let server = CannedServer(reply: Data(text.utf8), keepOpen: keepOpen)
        let backend = try RedisBackend(
            server: RedisServer(host: "127.0.0.1", port: server.port), timeouts: testTimeouts)
        return (backend, server)
    }

    private func httpReply(_ text: String, keepOpen: Bool = false) throws -> (HTTPCacheBackend, CannedServer) {
        let server = CannedServer(reply: Data(text.utf8), keepOpen: keepOpen)
        let backend = try HTTPCacheBackend(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, timeouts: testTimeouts)
        return (backend, server)
    }

    private let digest = SHA256Hasher.hash(Array("x".utf8))

    /// Expects `body` to throw a remote error whose message contains `text`, well before the
    /// operation timeout of 1 s (a missing bound would wait for bytes a kept-open connection never
    /// sends, and time out with another message).
    private func expectFailsFast(
        containing text: String, within limit: Duration = .milliseconds(900),
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        let start = ContinuousClock.now
        #expect(sourceLocation: sourceLocation) {
            try body()
        } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            let expected: BlobStoreError.Code = text == "larger than" ? .tooLarge : .remote
            return error.code == expected && error.message.contains(text)
        }
        #expect(ContinuousClock.now - start < limit, sourceLocation: sourceLocation)
    }

    /// Hostile replies with the connection kept open after them, and what the error must say.
    static let hostileRedisReplies: [(String, String)] = [
        ("$99999999999999\r\n", "larger than"), ("$9223372036854775807\r\n", "larger than"),
        ("$-7\r\n", "not Redis protocol"), ("$3\r\nabcXY", "not Redis protocol"),
        ("*99999\r\n", "not Redis protocol"), ("*2\r\n$1048576\r\n", "not Redis protocol"),
        ("?what\r\n", "not Redis protocol"), ("\r\n", "not Redis protocol"),
        (":notanumber\r\n", "not Redis protocol"), (String(repeating: "+", count: 100_000), "longer than"),
    ]

    @Test(arguments: hostileRedisReplies)
    func hostileRedisReplyIsAnErrorNeverACrash(reply: String, message: String) throws {
        let (backend, server) = try redisReply(reply, keepOpen: true)
        defer { server.stop() }
        expectFailsFast(containing: message) { _ = try backend.blob(digest, maximumSize: 1 << 20) }
    }

    @Test(arguments: ["$5\r\nab", ""])
    func truncatedRedisReplyIsAnError(reply: String) throws {
        let (backend, server) = try redisReply(reply)
        defer { server.stop() }
        expectFailsFast(containing: "closed the connection") { _ = try backend.blob(digest, maximumSize: 1 << 20) }
    }

    @Test func redisValueLargerThanAcceptedIsAnError() throws {
        let (backend, server) = try redisReply("$100\r\n" + String(repeating: "a", count: 100) + "\r\n", keepOpen: true)
        defer { server.stop() }
        expectFailsFast(containing: "larger than") { _ = try backend.blob(digest, maximumSize: 10) }
        #expect(try backend.blob(digest, maximumSize: 100) == Data(repeating: UInt8(ascii: "a"), count: 100))
    }

    @Test func redisNullBulkIsAMiss() throws {
        let (backend, server) = try redisReply("$-1\r\n")
        defer { server.stop() }
        #expect(try backend.blob(digest, maximumSize: 10) == nil)
    }

    @Test func redisErrorReplyIsAnError() throws {
        let (backend, server) = try redisReply("-OOM command not allowed\r\n")
        defer { server.stop() }
        expectFailsFast(containing: "OOM command not allowed") { try backend.putBlob(Data("x".utf8), digest: digest) }
    }

    /// A pooled connection (its first command answered `+OK`) whose second reply is `second`.
    private func pooledRedis(second: String, keepOpen: Bool) throws -> (RedisBackend, CannedServer) {
        let server = CannedServer(replies: [Data("+OK\r\n".utf8), Data(second.utf8)], keepOpen: keepOpen)
        let backend = try RedisBackend(
            server: RedisServer(host: "127.0.0.1", port: server.port), timeouts: testTimeouts)
        try backend.putBlob(Data("x".utf8), digest: digest)
        return (backend, server)
    }

    @Test(arguments: [
        ("-OOM command not allowed\r\n", "OOM command not allowed"), ("?garbage\r\n", "not Redis protocol"),
    ])
    func failureOnAPooledConnectionIsNotResent(reply: String, message: String) throws {
        let (backend, server) = try pooledRedis(second: reply, keepOpen: true)
        defer { server.stop() }
        expectFailsFast(containing: message) { try backend.putBlob(Data("x".utf8), digest: digest) }
        #expect(server.connections == 1, "the command was sent once")
    }

    @Test func replyCutShortOnAPooledConnectionIsNotResent() throws {
        let (backend, server) = try pooledRedis(second: "$5\r\nab", keepOpen: false)
        defer { server.stop() }
        expectFailsFast(containing: "closed the connection") { _ = try backend.blob(digest, maximumSize: 10) }
        #expect(server.connections == 1)
    }

    @Test func pooledConnectionTheServerClosedIsResentOnANewOne() throws {
        let server = CannedServer(replies: [Data("+OK\r\n".utf8)])  // one reply, then closed
        defer { server.stop() }
        let backend = try RedisBackend(
            server: RedisServer(host: "127.0.0.1", port: server.port), timeouts: testTimeouts)
        try backend.putBlob(Data("x".utf8), digest: digest)
        usleep(50_000)  // the close reaches the client
        try backend.putBlob(Data("x".utf8), digest: digest)
        #expect(server.connections == 2)
    }

    @Test func setAnsweredOtherThanOKIsAnError() throws {
        let (backend, server) = try redisReply("+QUEUED\r\n", keepOpen: true)
        defer { server.stop() }
        expectFailsFast(containing: "unexpected reply to SET") { try backend.putBlob(Data("x".utf8), digest: digest) }
    }

    @Test func errorReplyKeepsTheConnection() throws {
        let server = CannedServer(replies: [Data("-OOM command not allowed\r\n".utf8), Data("+OK\r\n".utf8)])
        defer { server.stop() }
        let backend = try RedisBackend(
            server: RedisServer(host: "127.0.0.1", port: server.port), timeouts: testTimeouts)
        #expect(throws: BlobStoreError.self) { try backend.putBlob(Data("x".utf8), digest: digest) }
        try backend.putBlob(Data("x".utf8), digest: digest)
        #expect(server.connections == 1)
    }

    @Test func millisecondsUntilADeadlineAreClamped() {
        #expect(SocketSyscalls.milliseconds(until: .now + .seconds(Int64.max / 2)) == Int32.max)
        #expect(SocketSyscalls.milliseconds(until: .now - .seconds(5)) == 0)
        let soon = SocketSyscalls.milliseconds(until: .now + .milliseconds(1500))
        #expect(soon > 1000 && soon <= 1500)
    }

    @Test func connectionGivesBackTheBufferOfALargeReply() throws {
        let size = 3 << 20
        let server = CannedServer(
            reply: Data("$\(size)\r\n".utf8) + Data(count: size) + Data("\r\n".utf8), keepOpen: true)
        defer { server.stop() }
        let connection = try RedisConnection(RedisServer(host: "127.0.0.1", port: server.port), timeouts: testTimeouts)
        defer { connection.close() }
        #expect(
            try connection.command([Data("GET".utf8)], maximumBulk: size, timeout: .seconds(5))
                == .bulk(Data(count: size)))
        #expect(connection.bufferCapacity < 1 << 20)
    }

    @Test func httpChunkedResponseIsDecoded() throws {
        let (backend, server) = try httpReply(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\n\r\n")
        defer { server.stop() }
        #expect(try backend.blob(digest, maximumSize: 100) == Data("abcde".utf8))
    }

    @Test func httpChunkSizeWithSpacesAndExtensionsIsRead() throws {
        let (backend, server) = try httpReply(
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5 \t;x=1\r\nhello\r\n0\r\n\r\n")
        defer { server.stop() }
        #expect(try backend.blob(digest, maximumSize: 100) == Data("hello".utf8))
    }

    @Test("An error status is a status even when its body's framing is broken")
    func errorStatusWithBrokenFramingIsAMiss() throws {
        let (backend, server) = try httpReply("HTTP/1.1 404 Not Found\r\nContent-Length: x\r\n\r\nnope")
        defer { server.stop() }
        #expect(try backend.blob(digest, maximumSize: 100) == nil)
    }

    @Test func httpBodyWithoutLengthIsReadToTheEnd() throws {
        let (backend, server) = try httpReply("HTTP/1.0 200 OK\r\n\r\nhello")
        defer { server.stop() }
        #expect(try backend.blob(digest, maximumSize: 100) == Data("hello".utf8))
    }

    /// Hostile replies with the connection kept open after them, and what the error must say.
    static let hostileHTTPReplies: [(String, String)] = [
        ("garbage\r\n\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "larger than"),
        ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFF\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n200000\r\n", "larger than"),
        ("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "x", count: 2 << 20), "larger than"),
        ("HTTP/1.1 500 Oops\r\n\r\n", "HTTP 500"), ("HTTP/1.1 401 Unauthorized\r\n\r\n", "HTTP 401"),
        ("HTTP/1.1 301 Moved\r\nLocation: http://elsewhere/\r\n\r\n", "HTTP 301"),
        ("HTTP/1.1 200 OK\r\n" + String(repeating: "X-A: b\r\n", count: 300), "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nbad header\r\n\r\n", "not HTTP/1.1"),
        // Chunk sizes are hex digits, then optional whitespace and extensions: nothing else.
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0 5\r\nhello\r\n0\r\n\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n", "not HTTP/1.1"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-0\r\n\r\n", "not HTTP/1.1"),
        // A line over the limit is refused even when it arrived whole in one read.
        ("HTTP/1.1 200 OK\r\nX-Long: " + String(repeating: "y", count: 40_000) + "\r\n\r\n", "longer than"),
    ]

    @Test(arguments: hostileHTTPReplies)
    func hostileHTTPReplyIsAnErrorNeverACrash(reply: String, message: String) throws {
        let (backend, server) = try httpReply(reply, keepOpen: true)
        defer { server.stop() }
        expectFailsFast(containing: message) { _ = try backend.blob(digest, maximumSize: 1 << 20) }
    }

    @Test func truncatedHTTPBodyIsAnError() throws {
        let (backend, server) = try httpReply("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort")
        defer { server.stop() }
        expectFailsFast(containing: "closed the connection") { _ = try backend.blob(digest, maximumSize: 1 << 20) }
    }

    @Test func httpStatusesMapToHitMissAndError() throws {
        let (missing, first) = try httpReply("HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nnope!")
        defer { first.stop() }
        #expect(try missing.blob(digest, maximumSize: 1) == nil)
        #expect(try missing.containsBlob(digest) == false)
        let (created, second) = try httpReply("HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")
        defer { second.stop() }
        try created.putBlob(Data("x".utf8), digest: digest)
        let (forbidden, third) = try httpReply("HTTP/1.1 403 Forbidden\r\n\r\n")
        defer { third.stop() }
        #expect {
            try forbidden.putBlob(Data("x".utf8), digest: digest)
        } throws: { error in
            (error as? BlobStoreError)?.message.contains("Check the credentials") == true
        }
    }

    // MARK: - Records

    @Test func recordRoundTripsAndRejectsOtherVersionsAndGarbage() throws {
        let record = RemoteRecord(
            digest: digest, size: 5, created: Date(timeIntervalSince1970: 1_700_000_000.123),
            expires: Date(timeIntervalSince1970: 1_800_000_000), metadata: Data([0, 1, 255]))
        #expect(RemoteRecord.decode(record.encoded()) == record)
        var text = String(decoding: record.encoded(), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"version\":1", with: "\"version\":2")
        #expect(RemoteRecord.decode(Data(text.utf8)) == nil)
        #expect(RemoteRecord.decode(Data("{}".utf8)) == nil)
        #expect(RemoteRecord.decode(Data(String(repeating: "[", count: 100_000).utf8)) == nil)
        let badDigest = #"{"version":1,"digest":"zz","size":1,"created":0,"metadata":""}"#
        #expect(RemoteRecord.decode(Data(badDigest.utf8)) == nil)
        #expect(record.isExpired(at: Date(timeIntervalSince1970: 1_900_000_000)))
        #expect(!record.isExpired(at: Date(timeIntervalSince1970: 1_700_000_000)))
    }

    // MARK: - URLs and sharding

    @Test func redisURLForms() throws {
        let plain = try RemoteURL.redisServers("redis://127.0.0.1")
        #expect(plain == [RedisServer(host: "127.0.0.1")])
        let full = try RemoteURL.redisServers("redis://bob:p%40ss@cache.example:6380/2")
        #expect(full == [RedisServer(host: "cache.example", port: 6380, user: "bob", password: "p@ss", database: 2)])
        let passwordOnly = try RemoteURL.redisServers("redis://secret@h")
        #expect(passwordOnly == [RedisServer(host: "h", password: "secret")])
        let shards = try RemoteURL.redisServers("redis://a:1,b:2,[::1]:3")
        #expect(shards.map(\.host) == ["a", "b", "::1"])
        #expect(shards.map(\.port) == [1, 2, 3])
        for bad in ["redis://", "redis://h:0", "redis://h:99999", "redis://h/x", "redis://a,,b", "redis://h:p"] {
            #expect(throws: BlobStoreError.self, "\(bad)") { _ = try RemoteURL.redisServers(bad) }
        }
        #expect(throws: BlobStoreError.self) { _ = try RemoteURL.backend("ftp://h") }
        #expect {
            _ = try RemoteURL.backend("redis://user:hunter2@h:x")
        } throws: { error in
            !((error as? BlobStoreError)?.message.contains("hunter2") ?? true)
        }
    }

    @Test(arguments: ["ci@cache://x", "ci:pw@cache:8080", "pw@x@h://y", "redis://u:pw@h:x@"])
    func invalidURLNeverCrashesNorShowsItsPassword(url: String) throws {
        #expect {
            _ = try RemoteURL.backend(url)
        } throws: { error in
            guard let message = (error as? BlobStoreError)?.message else { return false }
            return message.contains("***@") && !message.contains("pw") && !message.contains("ci@")
        }
    }

    @Test(arguments: [
        "http://alice:pw@/x", "https://alice:pw@:443/x", "http://alice:pw@h:65536", "http://alice:pw@h:0",
    ])
    func badHTTPURLIsInvalidAndHidesItsPassword(url: String) throws {
        let parsed = try #require(URL(string: url))
        #expect {
            _ = try HTTPCacheBackend(baseURL: parsed)
        } throws: { error in
            guard let error = error as? BlobStoreError else { return false }
            return error.code == .invalidArgument && error.message.contains("***@") && !error.message.contains("pw")
        }
    }

    @Test func httpURLForms() throws {
        let backend = try #require(
            try RemoteURL.backend("https://u:p@cache.example/ci/", environment: [:]) as? HTTPCacheBackend)
        #expect(backend.name == "https://cache.example/ci")
        #expect(backend.authentication == .basic(user: "u", password: "p"))
        let bearer = try #require(
            try RemoteURL.backend("http://h:8080", environment: ["BLOBSTORE_REMOTE_TOKEN": "t0k"]) as? HTTPCacheBackend)
        #expect(bearer.authentication == .bearer("t0k"))
        let trimmed = try #require(
            try RemoteURL.backend("http://h", environment: ["BLOBSTORE_REMOTE_TOKEN": " t0k==\n"]) as? HTTPCacheBackend)
        #expect(trimmed.authentication == .bearer("t0k=="))
        for injected in ["a\r\nX-Evil: 1", "a b", "=abc", "ä"] {
            #expect(throws: BlobStoreError.self, "\(injected)") {
                _ = try RemoteURL.backend("http://h", environment: ["BLOBSTORE_REMOTE_TOKEN": injected])
            }
        }
        #expect(HTTPAuthentication.bearer("t0k").headerValue == "Bearer t0k")
        #expect(HTTPAuthentication.basic(user: "u", password: "p").headerValue == "Basic dTpw")
    }

    @Test func rendezvousHashingIsStableAndSpreads() {
        let shards = ["redis://a:1", "redis://b:2", "redis://c:3"]
        var counts = [0, 0, 0]
        for index in 0..<3_000 {
            let key = "blobstore:cas:\(index)"
            let shard = RendezvousHashing.shard(for: key, among: shards)
            #expect(shard == RendezvousHashing.shard(for: key, among: shards))
            counts[shard] += 1
            // Removing another shard never moves a key.
            let others = shards.enumerated().filter { $0.offset != (shard + 1) % 3 }.map(\.element)
            #expect(others[RendezvousHashing.shard(for: key, among: others)] == shards[shard])
        }
        #expect(counts.allSatisfy { $0 > 800 })
    }
}
