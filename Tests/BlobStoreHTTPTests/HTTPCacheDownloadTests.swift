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

/// A cache without a memory tier, and a directory for the bodies its downloads write.
private struct Downloads {
    let cache: HTTPCache
    let directory: URL
    /// Where every download of a test writes its body.
    var file: URL { directory.appendingPathComponent("body") }

    /// Downloads `url` into ``file`` and checks that nothing else is left beside it.
    func get(_ url: URL, _ headers: [String: String] = [:]) async throws -> HTTPCacheDownload {
        let result = try await cache.download(for: BlobStoreHTTPTests.get(url, headers), to: file)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left == [file.lastPathComponent], "files left beside the destination: \(left)")
        return result
    }

    /// What the last download wrote.
    func body() throws -> Data { try Data(contentsOf: file) }
}

/// Runs `body` with a started server and ``Downloads`` through a cache with
/// `minimumDiskLifetime` (the policy's default when `nil`).
private func withDownloads(
    minimumDiskLifetime: TimeInterval? = nil, _ body: (TestServer, Downloads) async throws -> Void
) async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    var policy = HTTPCachePolicy()
    if let minimumDiskLifetime { policy.minimumDiskLifetime = minimumDiskLifetime }
    try await withServerAndCache(memoryBytes: 0, policy: policy) { server, cache in
        try await body(server, Downloads(cache: cache, directory: URL(fileURLWithPath: directory.path)))
    }
}

/// `HTTPCache.download(for:to:)`: the rules of `data(for:)`, with the body in a file.
@Suite("HTTP cache: downloads to a file")
struct HTTPCacheDownloadTests {
    @Test("A miss is stored from the file; the fresh hit writes the same bytes", arguments: [100, 300_000])
    func missThenFreshHit(size: Int) async throws {
        try await withDownloads { server, downloads in
            let target = "/d?cc=max-age%3D600&size=\(size)"
            let first = try await downloads.get(server.url(target))
            #expect(first.outcome == .miss)
            #expect(first.status == 200)
            #expect(first.byteCount == size)
            #expect(try downloads.body() == TestServer.pattern(size))
            try FileManager.default.removeItem(at: downloads.file)

            let second = try await downloads.get(server.url(target))
            #expect(second.outcome == .freshHit)
            #expect(second.byteCount == size)
            #expect(second.headers["Age"] != nil)
            #expect(try downloads.body() == TestServer.pattern(size))
            #expect(try await server.counts(target).requests == 1)
            // The same entry data(for:) finds.
            let fromMemory = try await downloads.cache.data(for: get(server.url(target)))
            #expect(fromMemory.outcome == .freshHit)
            #expect(fromMemory.body == TestServer.pattern(size))
        }
    }

    @Test("A 304 keeps the stored body, a 200 replaces it; the destination is replaced each time")
    func revalidation() async throws {
        try await withDownloads(minimumDiskLifetime: 0) { server, downloads in
            let same = "/r?cc=no-cache&etag=%22e1%22&body=kept"
            _ = try await downloads.get(server.url(same))
            let revalidated = try await downloads.get(server.url(same))
            #expect(revalidated.outcome == .revalidatedHit)
            #expect(try downloads.body() == Data("kept".utf8))
            #expect(try await server.counts(same).requests == 2)

            // Another ETag for the same URL: the stored "kept" fails validation, a new body answers.
            let changed = "/r?cc=no-cache&etag=%22e2%22&body=new"
            let first = try await downloads.get(server.url(changed))
            #expect(first.outcome == .miss)
            #expect(try downloads.body() == Data("new".utf8))
        }
    }

    @Test("Within stale-while-revalidate a download revalidates before it answers")
    func staleWhileRevalidateRevalidatesFirst() async throws {
        try await withDownloads(minimumDiskLifetime: 0) { server, downloads in
            let target = "/w?cc=max-age%3D0%2C%20stale-while-revalidate%3D600&etag=%22w%22&body=swr"
            _ = try await downloads.get(server.url(target))
            let second = try await downloads.get(server.url(target))
            #expect(second.outcome == .revalidatedHit)
            #expect(try downloads.body() == Data("swr".utf8))
            #expect(try await server.counts(target).requests == 2)
            // data(for:) answers the same stale response at once instead.
            #expect(try await downloads.cache.data(for: get(server.url(target))).outcome == .staleHit)
        }
    }

    @Test("Vary variants are stored and written apart")
    func varyVariants() async throws {
        try await withDownloads { server, downloads in
            let target = "/v?cc=max-age%3D600&vary=Accept-Language&body=v"
            for language in ["de", "fr", "de"] {
                _ = try await downloads.get(server.url(target), ["Accept-Language": language])
                #expect(try downloads.body() == Data("v Accept-Language=\(language)".utf8))
            }
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("A gzip body is kept decoded, with headers that describe it")
    func decodedBody() async throws {
        try await withDownloads { server, downloads in
            let result = try await downloads.get(server.url("/g?cc=max-age%3D600&gzip=1&body=unzipped"))
            #expect(try downloads.body() == Data("unzipped".utf8))
            #expect(result.byteCount == 8)
            #expect(result.headers["Content-Encoding"] == nil)
            #expect(result.headers["Content-Length"] == "8")
        }
    }

    @Test("A request that fails throws `network` and leaves no file")
    func failedRequestLeavesNothing() async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let file = URL(fileURLWithPath: downloads.child("body"))
        let store = TemporaryDirectory()
        defer { store.cleanup() }
        let cache = try makeCache(in: store, memoryBytes: 0)
        let port = LocalPorts.free()
        await #expect {
            _ = try await cache.download(for: get(URL(string: "http://127.0.0.1:\(port)/x")!), to: file)
        } throws: { error in
            (error as? BlobStoreError)?.code == .network
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: downloads.path).isEmpty)
    }
}
