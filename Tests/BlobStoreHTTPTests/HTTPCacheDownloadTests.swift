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

/// `HTTPCache.download(for:to:)`: the rules of `data(for:)`, with the body in a file.
@Suite("HTTP cache: downloads to a file")
struct HTTPCacheDownloadTests {
    /// Downloads `target` into `file` in `directory` and checks that nothing else is left there.
    private func download(
        _ cache: HTTPCache, _ url: URL, _ headers: [String: String] = [:], to file: URL, in directory: URL
    ) async throws -> HTTPCacheDownload {
        let result = try await cache.download(for: get(url, headers), to: file)
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(left == [file.lastPathComponent], "files left beside the destination: \(left)")
        return result
    }

    @Test("A miss is stored from the file; the fresh hit writes the same bytes", arguments: [100, 300_000])
    func missThenFreshHit(size: Int) async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let directory = URL(fileURLWithPath: downloads.path)
        let file = directory.appendingPathComponent("body")
        try await withServerAndCache(memoryBytes: 0) { server, cache in
            let target = "/d?cc=max-age%3D600&size=\(size)"
            let first = try await download(cache, server.url(target), to: file, in: directory)
            #expect(first.outcome == .miss)
            #expect(first.status == 200)
            #expect(first.byteCount == size)
            #expect(try Data(contentsOf: file) == TestServer.pattern(size))
            try FileManager.default.removeItem(at: file)

            let second = try await download(cache, server.url(target), to: file, in: directory)
            #expect(second.outcome == .freshHit)
            #expect(second.byteCount == size)
            #expect(second.headers["Age"] != nil)
            #expect(try Data(contentsOf: file) == TestServer.pattern(size))
            #expect(try await server.counts(target).requests == 1)
            // The same entry data(for:) finds.
            let fromMemory = try await cache.data(for: get(server.url(target)))
            #expect(fromMemory.outcome == .freshHit)
            #expect(fromMemory.body == TestServer.pattern(size))
        }
    }

    @Test("A 304 keeps the stored body, a 200 replaces it; the destination is replaced each time")
    func revalidation() async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let directory = URL(fileURLWithPath: downloads.path)
        let file = directory.appendingPathComponent("body")
        var policy = HTTPCachePolicy()
        policy.minimumDiskLifetime = 0
        try await withServerAndCache(memoryBytes: 0, policy: policy) { server, cache in
            let same = "/r?cc=no-cache&etag=%22e1%22&body=kept"
            _ = try await download(cache, server.url(same), to: file, in: directory)
            let revalidated = try await download(cache, server.url(same), to: file, in: directory)
            #expect(revalidated.outcome == .revalidatedHit)
            #expect(try Data(contentsOf: file) == Data("kept".utf8))
            #expect(try await server.counts(same).requests == 2)

            // Another ETag for the same URL: the stored "kept" fails validation, a new body answers.
            let changed = "/r?cc=no-cache&etag=%22e2%22&body=new"
            let first = try await download(cache, server.url(changed), to: file, in: directory)
            #expect(first.outcome == .miss)
            #expect(try Data(contentsOf: file) == Data("new".utf8))
        }
    }

    @Test("Within stale-while-revalidate a download revalidates before it answers")
    func staleWhileRevalidateRevalidatesFirst() async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let directory = URL(fileURLWithPath: downloads.path)
        let file = directory.appendingPathComponent("body")
        var policy = HTTPCachePolicy()
        policy.minimumDiskLifetime = 0
        try await withServerAndCache(memoryBytes: 0, policy: policy) { server, cache in
            let target = "/w?cc=max-age%3D0%2C%20stale-while-revalidate%3D600&etag=%22w%22&body=swr"
            _ = try await download(cache, server.url(target), to: file, in: directory)
            let second = try await download(cache, server.url(target), to: file, in: directory)
            #expect(second.outcome == .revalidatedHit)
            #expect(try Data(contentsOf: file) == Data("swr".utf8))
            #expect(try await server.counts(target).requests == 2)
            // data(for:) answers the same stale response at once instead.
            #expect(try await cache.data(for: get(server.url(target))).outcome == .staleHit)
        }
    }

    @Test("Vary variants are stored and written apart")
    func varyVariants() async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let directory = URL(fileURLWithPath: downloads.path)
        let file = directory.appendingPathComponent("body")
        try await withServerAndCache(memoryBytes: 0) { server, cache in
            let target = "/v?cc=max-age%3D600&vary=Accept-Language&body=v"
            for language in ["de", "fr", "de"] {
                _ = try await download(
                    cache, server.url(target), ["Accept-Language": language], to: file, in: directory)
                #expect(try Data(contentsOf: file) == Data("v Accept-Language=\(language)".utf8))
            }
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("A gzip body is kept decoded, with headers that describe it")
    func decodedBody() async throws {
        let downloads = TemporaryDirectory()
        defer { downloads.cleanup() }
        let directory = URL(fileURLWithPath: downloads.path)
        let file = directory.appendingPathComponent("body")
        try await withServerAndCache(memoryBytes: 0) { server, cache in
            let result = try await download(
                cache, server.url("/g?cc=max-age%3D600&gzip=1&body=unzipped"), to: file, in: directory)
            #expect(try Data(contentsOf: file) == Data("unzipped".utf8))
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
