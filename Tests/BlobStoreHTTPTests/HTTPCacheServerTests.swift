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

/// A cache over a fresh store in `directory`, with a memory tier of `memoryBytes` (none for 0).
func makeCache(
    in directory: TemporaryDirectory, memoryBytes: Int = 1 << 20, policy: HTTPCachePolicy = HTTPCachePolicy()
) throws -> HTTPCache {
    let disk = try BlobStore(at: directory.child("store"))
    let memory = memoryBytes > 0 ? try MemoryTier(maxBytes: memoryBytes) : nil
    return HTTPCache(store: CachedStore(disk: disk, memory: memory), policy: policy)
}

extension HTTPCache {
    /// The memory and disk store the caches of these tests are made with.
    var cachedStore: CachedStore {
        guard let cached = store as? CachedStore else { preconditionFailure("the tests make caches on a CachedStore") }
        return cached
    }
}

/// Runs `body` with a started server and a cache in a temporary directory; closes the store and
/// removes the directory afterwards.
func withServerAndCache(
    memoryBytes: Int = 1 << 20, policy: HTTPCachePolicy = HTTPCachePolicy(),
    _ body: (TestServer, HTTPCache) async throws -> Void
) async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    let cache = try makeCache(in: directory, memoryBytes: memoryBytes, policy: policy)
    defer { try? cache.cachedStore.disk.close() }
    try await withServer { server in try await body(server, cache) }
}

/// `GET url` with `headers`.
func get(_ url: URL, _ headers: [String: String] = [:]) -> URLRequest {
    var request = URLRequest(url: url)
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return request
}

@Suite("HTTP cache against a real server")
struct HTTPCacheServerTests {
    @Test("A fresh stored response answers without a request")
    func freshHitMakesNoRequest() async throws {
        try await withServerAndCache { server, cache in
            let target = "/fresh?cc=max-age%3D600&body=one"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .freshHit)
            #expect(second.body == Data("one".utf8))
            #expect(second.status == 200)
            #expect(second.headers["Age"] != nil)
            #expect(try await server.counts(target).requests == 1)
            #expect(try await cache.cachedStore.disk.entries().count == 1)
        }
    }

    @Test("removeAll empties the cache: the next request goes to the origin")
    func removeAllEmptiesTheCache() async throws {
        try await withServerAndCache { server, cache in
            let target = "/fresh?cc=max-age%3D600&body=one"
            _ = try await cache.data(for: get(server.url(target)))
            #expect(try await cache.data(for: get(server.url(target))).outcome == .freshHit)
            #expect(try cache.removeAll() == 1)
            #expect(try await cache.cachedStore.disk.entries().isEmpty)
            #expect(try await cache.data(for: get(server.url(target))).outcome == .miss)
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("max-age=0 with an ETag sends If-None-Match and a 304 keeps the body")
    func maxAgeZeroWithETagRevalidates() async throws {
        try await withServerAndCache { server, cache in
            let target = "/etag?cc=max-age%3D0&etag=%22v1%22&body=kept"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            let third = try await cache.data(for: get(server.url(target)))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .revalidatedHit)
            #expect(third.outcome == .revalidatedHit)
            #expect(second.body == Data("kept".utf8))
            #expect(second.status == 200)
            let counts = try await server.counts(target)
            #expect(counts.requests == 3)
            #expect(counts.notModified == 2)
        }
    }

    @Test("A 304 that changes only Date leaves a no-cache record on disk as it is; the answer has the new Date")
    func notModifiedOfNoCacheWritesNothing() async throws {
        var policy = HTTPCachePolicy()
        policy.minimumDiskLifetime = 0
        try await withServerAndCache(memoryBytes: 0, policy: policy) { server, cache in
            let target = "/nc?cc=no-cache&etag=%22a%22&body=body"
            _ = try await cache.data(for: get(server.url(target)))
            let key = HTTPCache.key(for: server.url(target))
            let before = try #require(try await cache.cachedStore.disk.info(for: key))
            // Across a second boundary, so that the 304's Date differs from the stored one.
            let stored = try #require(try cache.storedResponse(for: server.url(target), requestHeaders: [:]))
            while HTTPDate.format(Date()) == stored.response.headers["Date"] { usleep(50_000) }
            for _ in 0..<3 {
                let again = try await cache.data(for: get(server.url(target)))
                #expect(again.outcome == .revalidatedHit)
                #expect(again.body == Data("body".utf8))
                #expect(again.headers["Date"] != stored.response.headers["Date"])
            }
            let after = try #require(try await cache.cachedStore.disk.info(for: key))
            // The record holds the response's Date and times: written again, it would differ.
            #expect(after.metadata == before.metadata, "the record was not written again")
            #expect(try await server.counts(target).notModified == 3)
        }
    }

    @Test("After a 304, a read through the memory tier has the new headers, not the record kept with the old entry")
    func notModifiedRefreshesTheRecordKeptInMemory() async throws {
        try await withServerAndCache { server, cache in
            // The 200 says no-cache; the 304 says max-age=600.
            let target = "/kept?cc=no-cache&etag=%22a%22&body=body&cc304=max-age%3D600"
            let url = server.url(target)
            _ = try await cache.data(for: get(url))
            for _ in 0..<2 {
                let read = try #require(try cache.storedResponse(for: url, requestHeaders: [:], openingUpTo: 1 << 20))
                #expect(read.response.headers["Cache-Control"] == "no-cache")
            }
            let key = HTTPCache.key(for: url)
            #expect(cache.cachedStore.memory?.entry(for: key)?.decoded != nil, "the record is kept with the entry")
            let again = try await cache.data(for: get(url))
            #expect(again.outcome == .revalidatedHit)
            let after = try #require(try cache.storedResponse(for: url, requestHeaders: [:], openingUpTo: 1 << 20))
            #expect(after.response.headers["Cache-Control"] == "max-age=600")
            guard case .read(.value(let entry)) = after.body else {
                Issue.record("the body is read into memory")
                return
            }
            #expect(entry.value == Data("body".utf8))
        }
    }

    @Test("A 304 refreshes the stored headers on disk without refetching the body")
    func notModifiedRefreshesHeadersOnDisk() async throws {
        var policy = HTTPCachePolicy()
        policy.minimumDiskLifetime = 0
        try await withServerAndCache(memoryBytes: 0, policy: policy) { server, cache in
            // The 200 says no-cache; the 304 says max-age=600.
            let target = "/refresh?cc=no-cache&etag=%22a%22&body=body&cc304=max-age%3D600"
            _ = try await cache.data(for: get(server.url(target)))
            let before = try #require(try cache.storedResponse(for: server.url(target), requestHeaders: [:]))
            let key = HTTPCache.key(for: server.url(target))
            let entryBefore = try #require(try await cache.cachedStore.disk.info(for: key))
            usleep(5_000)
            let again = try await cache.data(for: get(server.url(target)))
            let after = try #require(try cache.storedResponse(for: server.url(target), requestHeaders: [:]))
            let entryAfter = try #require(try await cache.cachedStore.disk.info(for: key))
            #expect(entryAfter.created == entryBefore.created, "headers updated in place, the body not stored again")
            #expect(entryAfter.metadata != entryBefore.metadata)
            let third = try await cache.data(for: get(server.url(target)))
            #expect(again.outcome == .revalidatedHit)
            #expect(again.body == Data("body".utf8))
            #expect(after.response.responseTime > before.response.responseTime)
            #expect(after.response.headers["Cache-Control"] == "max-age=600")
            #expect(after.body == before.body)
            #expect(third.outcome == .freshHit)
            #expect(third.body == Data("body".utf8))
            let counts = try await server.counts(target)
            #expect(counts.requests == 2)
            #expect(counts.notModified == 1)
        }
    }

    @Test("A 304 with another ETag discards the stored response and refetches")
    func notModifiedWithOtherETagRefetches() async throws {
        try await withServerAndCache { server, cache in
            let target = "/etag-mismatch?cc=max-age%3D0&etag=%22v1%22&etag304=%22v2%22&body=b"
            _ = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(second.outcome == .miss)
            #expect(second.body == Data("b".utf8))
            #expect(second.headers["ETag"] == "\"v1\"")
            let counts = try await server.counts(target)
            #expect(counts.requests == 3)
            #expect(counts.notModified == 1)
        }
    }

    @Test("Last-Modified alone revalidates with If-Modified-Since")
    func lastModifiedRevalidates() async throws {
        try await withServerAndCache { server, cache in
            let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT".addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            let target = "/lm?cc=max-age%3D0&lm=\(lastModified)"
            _ = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(second.outcome == .revalidatedHit)
            #expect(try await server.counts(target).notModified == 1)
        }
    }

    @Test("no-store is never written, to disk or memory")
    func noStoreIsNeverWritten() async throws {
        try await withServerAndCache { server, cache in
            let target = "/nostore?cc=no-store&body=secret"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .miss)
            #expect(second.body == Data("secret".utf8))
            #expect(try await server.counts(target).requests == 2)
            #expect(try await cache.cachedStore.disk.entries().isEmpty)
            #expect(try await cache.cachedStore.disk.stats().distinctBlobs == 0)
            #expect(cache.cachedStore.memory?.count == 0)
            for directory in ["blobs", "tmp"] {
                let files = FileManager.default.enumerator(atPath: cache.cachedStore.disk.path + "/" + directory)?
                    .compactMap { $0 as? String }
                    .filter { name in
                        var isDirectory: ObjCBool = false
                        let path = cache.cachedStore.disk.path + "/" + directory + "/" + name
                        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
                            && !isDirectory.boolValue
                    }
                #expect(files ?? [] == [], "\(directory)/ holds files")
            }
        }
    }

    @Test("Vary: Accept-Encoding keeps one variant per request value")
    func varyKeepsTwoVariants() async throws {
        try await withServerAndCache { server, cache in
            let target = "/vary?cc=max-age%3D600&vary=Accept-Encoding&body=v"
            let gzip = try await cache.data(for: get(server.url(target), ["Accept-Encoding": "gzip"]))
            let brotli = try await cache.data(for: get(server.url(target), ["Accept-Encoding": "br"]))
            let gzipAgain = try await cache.data(for: get(server.url(target), ["Accept-Encoding": "gzip"]))
            let brotliAgain = try await cache.data(for: get(server.url(target), ["Accept-Encoding": "br"]))
            #expect(gzip.body == Data("v Accept-Encoding=gzip".utf8))
            #expect(brotli.body == Data("v Accept-Encoding=br".utf8))
            #expect(gzipAgain.outcome == .freshHit)
            #expect(gzipAgain.body == gzip.body)
            #expect(brotliAgain.outcome == .freshHit)
            #expect(brotliAgain.body == brotli.body)
            #expect(try await server.counts(target).requests == 2)
            // The URL's entry names the Vary headers; one entry per variant holds a response.
            #expect(try await cache.cachedStore.disk.entries().count == 3)
        }
    }

    @Test("A memory-only variant keeps the disk variants reachable")
    func memoryOnlyVariantKeepsDiskVariants() async throws {
        try await withServerAndCache { server, cache in
            let target = "/vary-mixed?cc=max-age%3D600&vary=Accept&body=v"
            let url = server.url(target)
            let onDisk = try await cache.data(for: get(url, ["Accept": "a"]))
            let namesBefore = try #require(try await cache.cachedStore.disk.info(for: HTTPCache.key(for: url)))
            try await Task.sleep(for: .milliseconds(20))  // a rewrite would have a later creation time
            // Another variant of the same URL, fresh for a minute: memory only.
            let brief = StoredResponse(
                url: url.absoluteString, status: 200, headers: ["Cache-Control": "max-age=60", "Vary": "Accept"],
                vary: nil, requestTime: Date(), responseTime: Date())
            #expect(try cache.store(brief, body: Data("b".utf8), requestHeaders: ["Accept": "b"]) == .memoryOnly)
            // The names record is unchanged, so it was not written again.
            #expect(try await cache.cachedStore.disk.info(for: HTTPCache.key(for: url))?.created == namesBefore.created)
            // As the CLI does: a fresh CachedStore over the same disk, without a memory tier.
            let diskOnly = HTTPCache(store: CachedStore(disk: cache.cachedStore.disk))
            let again = try await diskOnly.data(for: get(url, ["Accept": "a"]))
            #expect(onDisk.outcome == .miss)
            #expect(again.outcome == .freshHit)
            #expect(again.body == onDisk.body)
            #expect(try await server.counts(target).requests == 1)
        }
    }

    @Test("A response fresh for less than the minimum disk lifetime stays in memory only")
    func shortMaxAgeStaysInMemory() async throws {
        try await withServerAndCache { server, cache in
            // Below the 5-minute minimum disk lifetime, and long enough to stay fresh however
            // slowly a loaded machine runs the test (a 60 s lifetime expired in an 81 s run).
            let target = "/short?cc=max-age%3D240&body=brief"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .freshHit)
            #expect(second.body == Data("brief".utf8))
            #expect(try await server.counts(target).requests == 1)
            #expect(try await cache.cachedStore.disk.entries().isEmpty)
            #expect(cache.cachedStore.memory?.contains(HTTPCache.key(for: server.url(target))) == true)
        }
    }

    @Test("A short max-age without a memory tier is not stored at all")
    func shortMaxAgeWithoutMemoryIsNotStored() async throws {
        try await withServerAndCache(memoryBytes: 0) { server, cache in
            let target = "/short-nomem?cc=max-age%3D60"
            _ = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(second.outcome == .miss)
            #expect(try await server.counts(target).requests == 2)
            #expect(try await cache.cachedStore.disk.entries().isEmpty)
        }
    }

    @Test("Identical bodies at two URLs share one blob")
    func identicalBodiesShareOneBlob() async throws {
        try await withServerAndCache { server, cache in
            let first = try await cache.data(for: get(server.url("/same-a?cc=max-age%3D600&body=shared")))
            let second = try await cache.data(for: get(server.url("/same-b?cc=max-age%3D600&body=shared")))
            #expect(first.body == second.body)
            let entries = try await cache.cachedStore.disk.entries()
            #expect(entries.count == 2)
            #expect(Set(entries.map(\.digest)).count == 1)
            #expect(try await cache.cachedStore.disk.stats().distinctBlobs == 1)
        }
    }

    @Test("A chunked body larger than the memory tier is stored on disk and served intact")
    func chunkedBodyLargerThanMemoryTier() async throws {
        let size = 1 << 20
        try await withServerAndCache(memoryBytes: 64 << 10) { server, cache in
            let target = "/big?cc=max-age%3D600&size=\(size)&chunk=\(256 << 10)"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            let expected = TestServer.pattern(size)
            #expect(first.body == expected)
            #expect(second.outcome == .freshHit)
            #expect(second.body == expected)
            #expect(try await server.counts(target).requests == 1)
            let key = HTTPCache.key(for: server.url(target))
            #expect(cache.cachedStore.memory?.contains(key) == false)
            #expect(try await cache.cachedStore.disk.info(for: key)?.size == UInt64(size))
        }
    }

    @Test("A successful POST removes what is stored for its URL")
    func unsafeMethodInvalidates() async throws {
        try await withServerAndCache { server, cache in
            let target = "/post?cc=max-age%3D600"
            _ = try await cache.data(for: get(server.url(target)))
            var post = get(server.url(target))
            post.httpMethod = "POST"
            post.httpBody = Data("x".utf8)
            _ = try await cache.data(for: post)
            let after = try await cache.data(for: get(server.url(target)))
            #expect(after.outcome == .miss)
            #expect(try await server.counts(target).requests == 3)
        }
    }

    @Test("stale-while-revalidate serves the stale response and revalidates in the background")
    func staleWhileRevalidate() async throws {
        try await withServerAndCache { server, cache in
            let target = "/swr?cc=max-age%3D0,stale-while-revalidate%3D600&etag=%22s%22"
            _ = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(second.outcome == .staleHit)
            var notModified = 0
            for _ in 0..<100 where notModified == 0 {
                try await Task.sleep(for: .milliseconds(20))
                notModified = try await server.counts(target).notModified
            }
            #expect(notModified == 1)
        }
    }

    @Test("A burst of stale hits sends one background revalidation")
    func staleHitsShareOneRevalidation() async throws {
        try await withServerAndCache { server, cache in
            // The server holds the 304 until released: while it does, no second request may come.
            let target = "/swr-burst?cc=max-age%3D0,stale-while-revalidate%3D600&etag=%22s%22&gate=1"
            _ = try await cache.data(for: get(server.url(target)))
            for _ in 0..<5 {
                #expect(try await cache.data(for: get(server.url(target))).outcome == .staleHit)
            }
            var notModified = 0
            for _ in 0..<500 where notModified == 0 {
                try await Task.sleep(for: .milliseconds(20))
                notModified = try await server.counts(target).notModified
            }
            try await Task.sleep(for: .milliseconds(200))
            let counts = try await server.counts(target)
            #expect(counts.notModified == 1)
            #expect(counts.requests == 2)
            try await server.release()
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("A body larger than the store's capacity is served and not stored")
    func bodyLargerThanCapacity() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.limits = EvictionLimits(capacity: 4096)
        let disk = try BlobStore(at: directory.child("store"), configuration: configuration)
        defer { try? disk.close() }
        let cache = HTTPCache(store: CachedStore(disk: disk))
        try await withServer { server in
            let target = "/huge?cc=max-age%3D600&size=10000"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(first.body == TestServer.pattern(10000))
            #expect(second.outcome == .miss)
            #expect(try await disk.entries().isEmpty)
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("An Age near Int.max does not crash a hit")
    func hugeAgeIsServedClamped() async throws {
        try await withServerAndCache { server, cache in
            let target = "/huge-age?cc=max-age%3D600&etag=%22h%22&age=9223372036854775807"
            _ = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(second.outcome == .revalidatedHit)
            #expect(second.headers["Age"] == "2147483648")
        }
    }

    @Test("A followed redirect is served and not stored under the original URL")
    func followedRedirectIsNotStored() async throws {
        try await withServerAndCache { server, cache in
            let destination = "/there?cc=max-age%3D600&body=moved"
            let encoded = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let target = "/redirect?status=302&location=\(encoded)"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            #expect(first.body == Data("moved".utf8))
            #expect(first.outcome == .miss)
            #expect(second.outcome == .miss)
            #expect(try await server.counts(target).requests == 2)
            #expect(try cache.storedResponse(for: server.url(target), requestHeaders: [:]) == nil)
            #expect(try await cache.cachedStore.disk.entries().isEmpty)
        }
    }

    @Test("A gzip body decoded by URLSession is stored with headers that describe it")
    func decodedBodyDropsContentEncoding() async throws {
        try await withServerAndCache { server, cache in
            let target = "/gzip?cc=max-age%3D600&size=5000&gzip=1"
            let first = try await cache.data(for: get(server.url(target)))
            let second = try await cache.data(for: get(server.url(target)))
            let stored = try #require(try cache.storedResponse(for: server.url(target), requestHeaders: [:]))
            #expect(first.body == TestServer.pattern(5000))
            #expect(second.outcome == .freshHit)
            #expect(second.body == TestServer.pattern(5000))
            for headers in [first.headers, second.headers, stored.response.headers] {
                #expect(headers["Content-Encoding"] == nil)
                #expect(headers["Content-Length"] == "5000")
            }
        }
    }

    @Test("A variant too large for the store leaves the other variants")
    func tooLargeVariantKeepsOthers() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.limits = EvictionLimits(capacity: 4096)
        let disk = try BlobStore(at: directory.child("store"), configuration: configuration)
        defer { try? disk.close() }
        let cache = HTTPCache(store: CachedStore(disk: disk))
        try await withServer { server in
            let url = server.url("/vary-large?cc=max-age%3D600&vary=Accept&body=small")
            _ = try await cache.data(for: get(url, ["Accept": "a"]))
            let large = StoredResponse(
                url: url.absoluteString, status: 200, headers: ["Cache-Control": "max-age=600", "Vary": "Accept"],
                vary: nil, requestTime: Date(), responseTime: Date())
            let decision = try cache.store(large, body: Data(count: 10_000), requestHeaders: ["Accept": "b"])
            guard case .notStored(let reason) = decision else {
                Issue.record("stored: \(decision)")
                return
            }
            #expect(reason.hasPrefix("the response is too large for the store"))
            #expect(try await cache.data(for: get(url, ["Accept": "a"])).outcome == .freshHit)
        }
    }

    @Test("A server error is stored only with explicit freshness (RFC 9111 §3)")
    func serverErrorIsStoredOnlyWithExplicitFreshness() async throws {
        try await withServerAndCache { server, cache in
            let plain = "/error?status=503&lm=Sun,%2006%20Nov%201994%2008:49:37%20GMT"
            let first = try await cache.data(for: get(server.url(plain)))
            _ = try await cache.data(for: get(server.url(plain)))
            #expect(first.status == 503)
            #expect(try await server.counts(plain).requests == 2)
            let fresh = "/error?cc=max-age%3D600&status=503"
            _ = try await cache.data(for: get(server.url(fresh)))
            let second = try await cache.data(for: get(server.url(fresh)))
            #expect(second.status == 503)
            #expect(second.outcome == .freshHit)
            #expect(try await server.counts(fresh).requests == 1)
        }
    }
}
