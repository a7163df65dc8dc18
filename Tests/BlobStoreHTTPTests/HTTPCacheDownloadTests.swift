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

    @Test("A gzip body is kept as the server sent it, with the headers that describe it")
    func encodedBodyKeptAsSent() async throws {
        try await withDownloads { server, downloads in
            let target = "/g?cc=max-age%3D600&gzip=1&body=unzipped"
            let result = try await downloads.get(server.url(target))
            let body = try downloads.body()
            #expect(body.prefix(2) == Data([0x1f, 0x8b]), "a gzip stream begins 1f 8b")
            #expect(result.byteCount == body.count)
            #expect(result.headers["Content-Encoding"] == "gzip")
            #expect(result.headers["Content-Length"] == String(body.count))
            // The fresh hit writes the same bytes.
            #expect(try await downloads.get(server.url(target)).outcome == .freshHit)
            #expect(try downloads.body() == body)
        }
    }

    @Test(
        "Chunked bodies, interim responses and bodies read to the end arrive whole",
        arguments: [
            "/c?cc=max-age%3D600&size=300000&chunk=7000", "/i?cc=max-age%3D600&size=5000&interim=103",
        ])
    func framings(target: String) async throws {
        try await withDownloads { server, downloads in
            let result = try await downloads.get(server.url(target))
            #expect(result.status == 200)
            let size = target.contains("300000") ? 300_000 : 5000
            #expect(try downloads.body() == TestServer.pattern(size))
            #expect(try await downloads.get(server.url(target)).outcome == .freshHit)
            #expect(try downloads.body() == TestServer.pattern(size))
        }
    }

    @Test("A redirect is followed, its answer written and not stored under the original URL")
    func redirectFollowedNotStored() async throws {
        try await withDownloads { server, downloads in
            let destination = "/there?cc=max-age%3D600&body=moved"
            let encoded = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let target = "/redirect?status=302&location=\(encoded)"
            let first = try await downloads.get(server.url(target))
            #expect(first.status == 200)
            #expect(first.outcome == .miss)
            #expect(try downloads.body() == Data("moved".utf8))
            #expect(try await downloads.get(server.url(target)).outcome == .miss)
            #expect(try await server.counts(target).requests == 2)
            #expect(try await server.counts(destination).requests == 2)
            #expect(try downloads.cache.storedResponse(for: server.url(target), requestHeaders: [:]) == nil)
        }
    }

    @Test("A 303 turns a POST into a GET without its body; a 307 keeps both")
    func redirectMethods() async throws {
        try await withDownloads { server, downloads in
            for (status, method) in [(303, "GET"), (307, "POST")] {
                let destination = "/landing?echo=1"
                let encoded = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                var request = URLRequest(url: server.url("/form?status=\(status)&location=\(encoded)"))
                request.httpMethod = "POST"
                request.httpBody = Data("field=1".utf8)
                let result = try await downloads.cache.download(for: request, to: downloads.file)
                #expect(result.status == 200)
                let body = String(decoding: try downloads.body(), as: UTF8.self)
                if method == "GET" {
                    #expect(result.headers["X-Method"] == nil, "\(body)")
                    #expect(!body.contains("Content-Length"), "\(body)")
                } else {
                    #expect(result.headers["X-Method"] == "POST")
                    #expect(body == "field=1")
                }
            }
        }
    }

    @Test("Credentials in the URL are sent as Basic authorization and never shown in a message")
    func credentialsInTheURL() async throws {
        try await withDownloads { server, downloads in
            let url = URL(string: "http://us%20er:p%40ss@127.0.0.1:\(server.port)/e?echo=1")!
            let result = try await downloads.cache.download(for: get(url), to: downloads.file)
            #expect(result.status == 200)
            let expected = "Basic " + Data("us er:p@ss".utf8).base64EncodedString()
            #expect(String(decoding: try downloads.body(), as: UTF8.self).contains("Authorization: \(expected)"))
            let port = LocalPorts.free()
            let failing = URL(string: "http://user:secret@127.0.0.1:\(port)/x")!
            await #expect {
                _ = try await downloads.cache.download(for: get(failing), to: downloads.file)
            } throws: { error in
                (error as? BlobStoreError)?.code == .network && !"\(error)".contains("secret")
            }
        }
    }

    @Test("More redirects than the limit fail with `network`")
    func redirectLoopFails() async throws {
        try await withDownloads { server, downloads in
            let target = "/loop?status=302&loop=1"
            await #expect {
                _ = try await downloads.cache.download(for: get(server.url(target)), to: downloads.file)
            } throws: { error in
                (error as? BlobStoreError)?.code == .network && "\(error)".contains("redirects")
            }
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
