import BlobStore
import BlobStoreCache
import BlobStoreHTTP
import BlobStoreTestKit
import Foundation
import HTTPTestServer
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Opens a store in a new directory, registers a cache on it (with a 1 MiB memory tier when
/// `memory`) with ``BlobStoreURLProtocol``, and runs `body` with the store.
private func withRegisteredStore(memory: Bool, _ body: (BlobStore) async throws -> Void) async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    let disk = try BlobStore(at: directory.child("store"))
    defer { try? disk.close() }
    let tier = memory ? try MemoryTier(maxBytes: 1 << 20) : nil
    BlobStoreURLProtocol.register(HTTPCache(store: CachedStore(disk: disk, memory: tier)))
    defer { BlobStoreURLProtocol.register(nil) }
    try await body(disk)
}

/// A stock ephemeral session whose protocol classes start with ``BlobStoreURLProtocol``.
private func protocolSession() -> URLSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.protocolClasses = [BlobStoreURLProtocol.self] + (configuration.protocolClasses ?? [])
    return URLSession(configuration: configuration)
}

/// ``withRegisteredStore(memory:_:)`` with a memory tier, and the test server and a
/// ``protocolSession()`` as well.
private func withRegisteredCache(_ body: (TestServer, URLSession, BlobStore) async throws -> Void) async throws {
    try await withRegisteredStore(memory: true) { disk in
        try await withServer { server in try await body(server, protocolSession(), disk) }
    }
}

/// The one suite that registers a cache with ``BlobStoreURLProtocol`` (a process-wide setting).
@Suite("URLProtocol with a stock URLSession", .serialized)
struct URLProtocolTests {
    @Test("A stock URLSession with the protocol registered is served from the cache the second time")
    func stockSessionServedFromCache() async throws {
        try await withRegisteredCache { server, session, disk in
            let url = server.url("/protocol?cc=max-age%3D600&body=through-protocol")

            let (first, firstResponse) = try await session.data(from: url)
            #expect(BlobStoreURLProtocol.lastOutcome(for: url) == .miss)
            let (second, secondResponse) = try await session.data(from: url)
            #expect(BlobStoreURLProtocol.lastOutcome(for: url) == .freshHit)

            #expect(first == Data("through-protocol".utf8))
            #expect(second == first)
            #expect((firstResponse as? HTTPURLResponse)?.statusCode == 200)
            let served = try #require(secondResponse as? HTTPURLResponse)
            #expect(served.statusCode == 200)
            #expect(served.value(forHTTPHeaderField: "Cache-Control") == "max-age=600")
            #expect(try await server.counts("/protocol?cc=max-age%3D600&body=through-protocol").requests == 1)
        }
    }

    @Test("A failure reaches the session as a URLError, and only the latest outcomes are kept")
    func failuresAreURLErrorsAndOutcomesAreBounded() async throws {
        try await withRegisteredStore(memory: false) { _ in
            let session = protocolSession()
            defer { session.finishTasksAndInvalidate() }

            await #expect(throws: URLError.self) {
                _ = try await session.data(from: try #require(URL(string: "http://127.0.0.1:1/refused")))
            }
            try await withServer { server in
                let urls = (0...BlobStoreURLProtocol.rememberedOutcomes).map { server.url("/many-\($0)?body=x") }
                for url in urls { _ = try await session.data(from: url) }
                #expect(BlobStoreURLProtocol.lastOutcome(for: urls[0]) == nil)
                #expect(BlobStoreURLProtocol.lastOutcome(for: urls[urls.count - 1]) == .miss)
            }
        }
    }

    @Test("After stopLoading the client hears nothing")
    func stoppedProtocolIsSilent() async throws {
        try await withRegisteredStore(memory: false) { _ in
            try await withServer { server in
                // A conditional request goes to the server, which holds its 304 until released.
                let target = "/held?etag=%22h%22&gate=1"
                var request = URLRequest(url: server.url(target))
                request.setValue("\"h\"", forHTTPHeaderField: "If-None-Match")
                let client = RecordingClient()
                let loader = BlobStoreURLProtocol(request: request, cachedResponse: nil, client: client)
                loader.startLoading()
                var arrived = 0
                for _ in 0..<500 where arrived == 0 {
                    try await Task.sleep(for: .milliseconds(10))
                    arrived = try await server.counts(target).notModified
                }
                loader.stopLoading()
                try await server.release()
                try await Task.sleep(for: .milliseconds(300))
                #expect(arrived == 1)
                #expect(client.calls == [])
            }
        }
    }

    @Test("HTTPCache leaves the caller's session configuration unchanged")
    func sessionConfigurationIsCopied() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try BlobStore(at: directory.child("store"))
        defer { try? disk.close() }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [BlobStoreURLProtocol.self]
        configuration.requestCachePolicy = .returnCacheDataElseLoad
        let cache = HTTPCache(store: CachedStore(disk: disk), sessionConfiguration: configuration)
        #expect(configuration.protocolClasses?.count == 1)
        #expect(configuration.requestCachePolicy == .returnCacheDataElseLoad)
        #expect(cache.policy == HTTPCachePolicy())
    }

    @Test("A POST is left to the session and reaches the server with its body")
    func postThroughProtocol() async throws {
        try await withRegisteredCache { server, session, disk in
            let target = "/posted?cc=max-age%3D600"
            _ = try await session.data(from: server.url(target))
            #expect(try await disk.entries().count == 1)

            var post = URLRequest(url: server.url(target))
            post.httpMethod = "POST"
            let (echo, response) = try await session.upload(for: post, from: Data("payload".utf8))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            #expect(echo == Data("payload".utf8))
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("The protocol handles GET and HEAD of http(s) URLs, and nothing without a registered cache")
    func unregisteredHandlesNothing() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        BlobStoreURLProtocol.register(nil)
        let request = URLRequest(url: try #require(URL(string: "http://127.0.0.1/")))
        var head = request
        head.httpMethod = "HEAD"
        #expect(!BlobStoreURLProtocol.canInit(with: request))
        #expect(!BlobStoreURLProtocol.canInit(with: head))
        let disk = try BlobStore(at: directory.child("store"))
        defer { try? disk.close() }
        BlobStoreURLProtocol.register(HTTPCache(store: CachedStore(disk: disk)))
        defer { BlobStoreURLProtocol.register(nil) }
        #expect(BlobStoreURLProtocol.canInit(with: request))
        #expect(BlobStoreURLProtocol.canInit(with: head))
        var post = request
        post.httpMethod = "POST"
        #expect(!BlobStoreURLProtocol.canInit(with: post))
        #expect(!BlobStoreURLProtocol.canInit(with: URLRequest(url: try #require(URL(string: "ftp://h/")))))
    }
}
