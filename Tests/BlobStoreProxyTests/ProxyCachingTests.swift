import BlobStore
import BlobStoreTestKit
import Foundation
import Testing

/// The shared-cache rules of RFC 9111 as the proxy applies them, over real sockets.
@Suite("Caching proxy: shared-cache rules")
struct ProxyCachingTests {
    @Test("A fresh response is stored on a miss and answers the next request, with Age, Via and Cache-Status")
    func missThenHit() async throws {
        try await withProxy { proxy in
            let target = "/a?cc=max-age%3D600&size=5000"
            let first = try proxy.get(target)
            #expect(first.status == 200)
            #expect(first["Cache-Status"] == "blobstore; fwd=uri-miss; fwd-status=200; stored")
            #expect(first["Via"] == "1.1 blobstore")
            let second = try proxy.get(target)
            #expect(second.status == 200)
            #expect(second.body == first.body)
            #expect(second.body.count == 5000)
            #expect(second["Cache-Status"]?.hasPrefix("blobstore; hit; ttl=") == true)
            #expect(second["Age"].flatMap(Int.init) != nil)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("A private response, or one to a request with Authorization, is not stored by the shared cache")
    func privateAndAuthorizationAreNotShared() async throws {
        try await withProxy { proxy in
            let privateTarget = "/p?cc=private,%20max-age%3D600"
            _ = try proxy.get(privateTarget)
            let again = try proxy.get(privateTarget)
            #expect(again["Cache-Status"]?.contains("fwd=uri-miss") == true)
            #expect(try await proxy.originRequests(privateTarget) == 2)

            let authorized = "/auth?cc=max-age%3D600"
            _ = try proxy.get(authorized, ["Authorization: Bearer secret"])
            _ = try proxy.get(authorized, ["Authorization: Bearer secret"])
            #expect(try await proxy.originRequests(authorized) == 2)

            let allowed = "/auth?cc=public,%20max-age%3D600"
            _ = try proxy.get(allowed, ["Authorization: Bearer secret"])
            let hit = try proxy.get(allowed, ["Authorization: Bearer secret"])
            #expect(hit["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests(allowed) == 1)
        }
    }

    @Test("s-maxage gives the shared lifetime over max-age; no-store is never stored")
    func sharedMaxAgeAndNoStore() async throws {
        try await withProxy { proxy in
            let shared = "/s?cc=max-age%3D0,%20s-maxage%3D600"
            _ = try proxy.get(shared)
            #expect(try proxy.get(shared)["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests(shared) == 1)

            let noStore = "/n?cc=no-store,%20max-age%3D600"
            _ = try proxy.get(noStore)
            _ = try proxy.get(noStore)
            #expect(try await proxy.originRequests(noStore) == 2)

            let requestNoStore = "/rn?cc=max-age%3D600"
            _ = try proxy.get(requestNoStore, ["Cache-Control: no-store"])
            _ = try proxy.get(requestNoStore)
            #expect(try await proxy.originRequests(requestNoStore) == 2)
        }
    }

    @Test("A client's conditional request is answered 304 from the stored response")
    func clientConditionalsAnsweredFromTheCache() async throws {
        try await withProxy { proxy in
            let target = "/c?cc=max-age%3D600&etag=%22v1%22&lm=Sun,%2006%20Nov%201994%2008:49:37%20GMT"
            _ = try proxy.get(target)
            let matching = try proxy.get(target, ["If-None-Match: \"v0\", W/\"v1\""])
            #expect(matching.status == 304)
            #expect(matching["ETag"] == "\"v1\"")
            #expect(matching.body.isEmpty)
            let other = try proxy.get(target, ["If-None-Match: \"v2\""])
            #expect(other.status == 200)
            let since = try proxy.get(target, ["If-Modified-Since: Mon, 07 Nov 1994 08:49:37 GMT"])
            #expect(since.status == 304)
            let before = try proxy.get(target, ["If-Modified-Since: Sat, 05 Nov 1994 08:49:37 GMT"])
            #expect(before.status == 200)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("A stale response with a validator is revalidated; a 304 refreshes it and its body answers")
    func revalidation() async throws {
        try await withProxy { proxy in
            let target = "/r?cc=max-age%3D0&etag=%22e%22&body=kept"
            _ = try proxy.get(target)
            let second = try proxy.get(target)
            #expect(second.status == 200)
            #expect(second.text == "kept")
            #expect(second["Cache-Status"] == "blobstore; fwd=stale; fwd-status=304")
            let counts = try await proxy.origin.counts(target)
            #expect(counts.requests == 2)
            #expect(counts.notModified == 1)
        }
    }

    @Test("only-if-cached answers 504 without a stored response; max-stale accepts a stale one; min-fresh refuses")
    func requestDirectives() async throws {
        try await withProxy { proxy in
            let missing = try proxy.get("/missing?cc=max-age%3D600", ["Cache-Control: only-if-cached"])
            #expect(missing.status == 504)
            #expect(try await proxy.originRequests("/missing?cc=max-age%3D600") == 0)

            let target = "/stale?cc=max-age%3D1&body=old"
            _ = try proxy.get(target)
            try await Task.sleep(for: .seconds(2.2))
            let accepted = try proxy.get(target, ["Cache-Control: max-stale=600"])
            #expect(accepted["Cache-Status"]?.contains("hit") == true)
            #expect(accepted.text == "old")
            #expect(try await proxy.originRequests(target) == 1)

            let fresh = "/fresh?cc=max-age%3D600"
            _ = try proxy.get(fresh)
            let refused = try proxy.get(fresh, ["Cache-Control: min-fresh=3600"])
            #expect(refused["Cache-Status"]?.contains("hit") != true)
            #expect(try await proxy.originRequests(fresh) == 2)
        }
    }

    @Test("stale-if-error answers with the stale response when the origin fails; must-revalidate never does")
    func staleIfError() async throws {
        try await withProxy { proxy in
            let target = "/sie?cc=max-age%3D1,%20stale-if-error%3D600&failafter=1&body=good"
            _ = try proxy.get(target)
            try await Task.sleep(for: .seconds(2.2))
            let answer = try proxy.get(target)
            #expect(answer.status == 200)
            #expect(answer.text == "good")

            let strict = "/mr?cc=max-age%3D1,%20must-revalidate,%20stale-if-error%3D600&failafter=1"
            _ = try proxy.get(strict)
            try await Task.sleep(for: .seconds(2.2))
            #expect(try proxy.get(strict).status == 503)
        }
    }

    @Test("Vary selects the stored variant by the request's fields; Vary: * is never stored")
    func vary() async throws {
        try await withProxy { proxy in
            let target = "/v?cc=max-age%3D600&vary=Accept-Language"
            let english = try proxy.get(target, ["Accept-Language: en"])
            let french = try proxy.get(target, ["Accept-Language: fr"])
            #expect(english.text.hasSuffix("Accept-Language=en"))
            #expect(french.text.hasSuffix("Accept-Language=fr"))
            #expect(try proxy.get(target, ["Accept-Language: en"]).text == english.text)
            #expect(try proxy.get(target, ["Accept-Language: fr"]).text == french.text)
            #expect(try await proxy.originRequests(target) == 2)

            let star = "/star?cc=max-age%3D600&vary=*"
            _ = try proxy.get(star)
            _ = try proxy.get(star)
            #expect(try await proxy.originRequests(star) == 2)
        }
    }

    @Test("A successful unsafe request invalidates the stored response, and the same-origin Location")
    func unsafeMethodsInvalidate() async throws {
        try await withProxy { proxy in
            let target = "/inv?cc=max-age%3D600&location=/other%3Fcc%3Dmax-age%253D600"
            let other = "/other?cc=max-age%3D600"
            _ = try proxy.get(target)
            _ = try proxy.get(other)
            let client = try proxy.client()
            try client.send(ProxyHarness.request("POST", target, body: "x"))
            let posted = try client.response()
            #expect(posted.status == 200)
            #expect(posted.text == "x")
            _ = try proxy.get(target)
            _ = try proxy.get(other)
            #expect(try await proxy.originRequests(target) == 3)
            #expect(try await proxy.originRequests(other) == 2)
        }
    }

    @Test("Heuristic freshness applies only to heuristically cacheable statuses with Last-Modified")
    func heuristicFreshness() async throws {
        try await withProxy { proxy in
            let old = "Sun,%2006%20Nov%201994%2008:49:37%20GMT"
            let ok = "/h?lm=\(old)"
            _ = try proxy.get(ok)
            #expect(try proxy.get(ok)["Cache-Status"]?.contains("hit") == true)
            let error = "/h?lm=\(old)&status=500"
            _ = try proxy.get(error)
            _ = try proxy.get(error)
            #expect(try await proxy.originRequests(error) == 2)
            let explicitError = "/h?cc=max-age%3D600&status=500"
            _ = try proxy.get(explicitError)
            #expect(try proxy.get(explicitError).status == 500)
            #expect(try await proxy.originRequests(explicitError) == 1)
        }
    }

    @Test("Concurrent misses for one URL make one origin request (request collapsing)")
    func collapsing() async throws {
        try await withProxy { proxy in
            let target = "/slow?cc=max-age%3D600&delay=1&body=once"
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<8 {
                    group.addTask { try proxy.get(target).text }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies == Array(repeating: "once", count: 8))
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test(
        "Misses for a URL whose last response could not be stored are not collapsed (hit-for-miss), long URLs too",
        arguments: [0, 1500])
    func uncacheableMissesAreNotCollapsed(padding: Int) async throws {
        try await withProxy { proxy in
            let target = "/slow?cc=no-store&delay=1&body=each&pad=" + String(repeating: "p", count: padding)
            // One response teaches every event loop (where a request goes is remembered once for
            // all of them): the six that follow, on whichever loops, wait for none of the others.
            #expect(try proxy.get(target).text == "each")
            let statuses = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<6 {
                    group.addTask { try proxy.get(target)["Cache-Status"] ?? "" }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 6)
            #expect(statuses.allSatisfy { !$0.contains("collapsed") }, "\(statuses)")
            #expect(try proxy.counter("collapsed") == 0, "no request waited for another's response")
            #expect(try await proxy.originRequests(target) == 1 + 6)
        }
    }

    @Test("A request that keeps a response from being stored by itself (no-store) leaves collapsing on")
    func requestNoStoreLeavesCollapsingOn() async throws {
        try await withProxy { proxy in
            let target = "/slow?cc=max-age%3D600&delay=1&body=shared"
            let learning = 2
            for _ in 0..<learning {
                #expect(try proxy.get(target, ["Cache-Control: no-store"]).text == "shared")
            }
            let bodies = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<6 {
                    group.addTask { try proxy.get(target).text }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(bodies == Array(repeating: "shared", count: 6))
            #expect(try await proxy.originRequests(target) == learning + 1)
        }
    }

    @Test(
        "A large stored body found damaged when it is verified (on another thread) is a miss, answered from the origin")
    func damagedLargeBodyIsAMiss() async throws {
        try await withProxy { proxy in
            // Over 1 MiB: kept in a file of its own, opened on a hit and hashed before it is sent.
            let target = "/damaged-large?cc=max-age%3D600&size=2097152"
            let stored = try proxy.get(target)
            #expect(stored["Cache-Status"]?.contains("stored") == true)
            let hit = try proxy.get(target)
            #expect(hit.body == stored.body && hit["Cache-Status"]?.contains("hit") == true)
            try Self.damageStoredFile(of: stored.body, in: proxy)
            let answer = try proxy.get(target)
            #expect(answer.status == 200 && answer.body == stored.body)
            #expect(answer["Cache-Status"]?.contains("hit") == false, "\(answer["Cache-Status"] ?? "")")
            #expect(try await proxy.originRequests(target) == 2)
            // Stored again from the origin's answer: a hit once more.
            #expect(try proxy.get(target)["Cache-Status"]?.contains("hit") == true)
        }
    }

    @Test("A damaged large body is a miss whether it would be revalidated, kept for stale-if-error or served stale")
    func damagedLargeBodyIsAMissOnEveryPath() async throws {
        try await withProxy { proxy in
            func damage(_ body: [UInt8]) throws { try Self.damageStoredFile(of: body, in: proxy) }
            // Stale with a validator: not revalidated, fetched whole (the 304 would have answered
            // with the damaged body).
            let revalidated = "/dl-revalidated?cc=max-age%3D0&etag=%22e%22&size=2097152"
            let first = try proxy.get(revalidated)
            try damage(first.body)
            let fetched = try proxy.get(revalidated)
            #expect(fetched.status == 200 && fetched.body == first.body)
            #expect(fetched["Cache-Status"]?.contains("fwd=uri-miss") == true, "\(fetched["Cache-Status"] ?? "")")
            // A HEAD whose 200 would freshen the stored GET response is relayed as the origin sent it.
            let head = "/dl-head?cc=max-age%3D0&etag=%22h%22&size=2097152"
            try damage(try proxy.get(head).body)
            let headAnswer = try proxy.get(head, method: "HEAD")
            #expect(headAnswer.status == 200 && headAnswer["Content-Length"] == "2097152")
            // stale-while-revalidate: no background revalidation of a damaged body, one miss;
            // stale-if-error: the origin's failure is relayed, not the damaged body.
            let swr = "/dl-swr?cc=max-age%3D1,%20stale-while-revalidate%3D600&etag=%22s%22&size=2097152"
            let kept = try proxy.get(swr)
            try damage(kept.body)
            let failing = "/dl-sie?cc=max-age%3D1,%20stale-if-error%3D600&failafter=1&size=2097152"
            try damage(try proxy.get(failing).body)
            try await Task.sleep(for: .seconds(2.2))
            let missed = try proxy.get(swr)
            #expect(missed.status == 200 && missed.body == kept.body)
            #expect(try proxy.get(failing).status == 503)
            try await Task.sleep(for: .seconds(0.5))
            #expect(try await proxy.originRequests(swr) == 2)
        }
    }

    @Test(
        "A chunked body found damaged once it would be sent after a 304, for stale-if-error or a HEAD's refresh: answered from the origin"
    )
    func damagedChunkedBodyOnTheOriginPaths() async throws {
        var chunked = fast
        chunked.chunkThreshold = 1 << 20
        try await withProxy(store: chunked) { proxy in
            let revalidated = "/dc-revalidated?cc=max-age%3D0&etag=%22e%22&size=2097152"
            let body = try proxy.get(revalidated).body
            let failing = "/dc-sie?cc=max-age%3D1,%20stale-if-error%3D600&failafter=1&size=2097152"
            _ = try proxy.get(failing)
            let head = "/dc-head?cc=max-age%3D0&etag=%22h%22&size=2097152"
            _ = try proxy.get(head)
            try damageEveryPack(ofStoreAt: proxy.directory.child("store"))
            // The origin's 304 would answer with the damaged body: fetched whole instead.
            let fetched = try proxy.get(revalidated)
            #expect(fetched.status == 200 && fetched.body == body)
            #expect(try await proxy.originRequests(revalidated) == 3)
            let headAnswer = try proxy.get(head, method: "HEAD")
            #expect(headAnswer.status == 200 && headAnswer["Content-Length"] == "2097152")
            try await Task.sleep(for: .seconds(1.2))
            #expect(try proxy.get(failing).status == 503)
        }
    }

    /// Changes four bytes, 1,000,000 bytes in, of the file `proxy`'s store keeps `body` in (a body
    /// over 1 MiB: a file of its own).
    private static func damageStoredFile(of body: [UInt8], in proxy: ProxyHarness) throws {
        let digest = SHA256Hasher.hash(Data(body))
        let file = proxy.directory.child("store") + "/blobs/sha256/\(digest.hex.prefix(2))/\(digest.hex)"
        chmod(file, 0o600)
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.seek(toOffset: 1_000_000)
        try handle.write(contentsOf: Data([0x00, 0xFF, 0x00, 0xFF]))
        try handle.close()
    }

    @Test("HEAD is answered from a stored GET response, without a body")
    func headFromStoredGet() async throws {
        try await withProxy { proxy in
            let target = "/head?cc=max-age%3D600&size=100"
            _ = try proxy.get(target)
            let head = try proxy.get(target, method: "HEAD")
            #expect(head.status == 200)
            #expect(head["Content-Length"] == "100")
            #expect(head["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("The metrics listener serves the counters in the Prometheus text format")
    func metrics() async throws {
        try await withProxy { proxy in
            _ = try proxy.get("/m?cc=max-age%3D600")
            _ = try proxy.get("/m?cc=max-age%3D600")
            let port = try #require(proxy.server.metricsPort)
            let client = try RawClient(port: port)
            try client.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = try client.response().text
            #expect(text.contains("blobstore_proxy_requests_total 2\n"))
            #expect(text.contains("blobstore_proxy_hits_total 1\n"))
            #expect(text.contains("blobstore_proxy_misses_total 1\n"))
            #expect(text.contains("# TYPE blobstore_proxy_store_bytes gauge\n"))
        }
    }

    @Test("A byte range is served 206 from a stored complete response; past the end it is 416")
    func rangesFromAStoredResponse() async throws {
        try await withProxy { proxy in
            let target = "/range?cc=max-age%3D600&body=0123456789"
            _ = try proxy.get(target)
            let first = try proxy.get(target, ["Range: bytes=0-1"])
            #expect(first.status == 206)
            #expect(first.text == "01")
            #expect(first["Content-Range"] == "bytes 0-1/10")
            #expect(try proxy.get(target, ["Range: bytes=7-"]).text == "789")
            #expect(try proxy.get(target, ["Range: bytes=-3"]).text == "789")
            let beyond = try proxy.get(target, ["Range: bytes=20-30"])
            #expect(beyond.status == 416)
            #expect(beyond["Content-Range"] == "bytes */10")
            #expect(try proxy.get(target, ["Range: bytes=0-1, 3-4"]).status == 200)
            #expect(try proxy.get(target, ["Range: bytes=0-1", "If-Range: \"other\""]).status == 200)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("A 200 to HEAD freshens the stored GET response; the HEAD is answered with its stored fields")
    func headFreshensTheStoredResponse() async throws {
        try await withProxy { proxy in
            // Fresh for 3 s after the HEAD: time for the next GET on a loaded machine.
            let target = "/hf?cc=max-age%3D3&header=X-Stored:%20kept&size=10"
            _ = try proxy.get(target)
            try await Task.sleep(for: .seconds(3.2))
            let head = try proxy.get(target, method: "HEAD")
            #expect(head.status == 200)
            #expect(head["X-Stored"] == "kept")
            #expect(try proxy.get(target)["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests(target) == 2)
        }
    }

    @Test("no-cache naming fields lets the response be reused without them")
    func qualifiedNoCache() async throws {
        try await withProxy { proxy in
            let target = "/q?cc=max-age%3D600,%20no-cache%3D%22X-Secret%22&header=X-Secret:%20s"
            let first = try proxy.get(target)
            #expect(first["X-Secret"] == "s")
            let second = try proxy.get(target)
            #expect(second["Cache-Status"]?.contains("hit") == true)
            #expect(second["X-Secret"] == nil)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }

    @Test("A request with no-store is sent on and not answered from the cache")
    func requestNoStoreBypasses() async throws {
        try await withProxy { proxy in
            let target = "/ns?cc=max-age%3D600"
            _ = try proxy.get(target)
            let bypassed = try proxy.get(target, ["Cache-Control: no-store"])
            #expect(bypassed["Cache-Status"]?.contains("fwd=request") == true)
            #expect(try await proxy.originRequests(target) == 2)
        }
    }

    @Test("CDN-Cache-Control decides for the proxy over Cache-Control")
    func targetedField() async throws {
        try await withProxy { proxy in
            let target = "/cdn?cc=no-store&header=CDN-Cache-Control:%20max-age%3D600"
            _ = try proxy.get(target)
            #expect(try proxy.get(target)["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests(target) == 1)
        }
    }
}

/// What the proxy does when its origin goes away.
@Suite("Caching proxy: a disconnected origin")
struct ProxyDisconnectedTests {
    @Test("With the origin gone, a stale response answers unless it must be revalidated")
    func staleWhenDisconnected() async throws {
        let harness = try ProxyHarness()
        defer { harness.stop() }
        let loose = "/gone?cc=max-age%3D1&body=stale-but-here"
        let strict = "/gone?cc=max-age%3D1,%20proxy-revalidate&body=strict"
        _ = try harness.get(loose)
        _ = try harness.get(strict)
        harness.origin.stop()
        try await Task.sleep(for: .seconds(2.2))
        let answer = try harness.get(loose)
        #expect(answer.status == 200)
        #expect(answer.text == "stale-but-here")
        #expect(answer["Cache-Status"]?.contains("the origin failed") == true)
        #expect(try harness.get(strict).status == 502)
    }
}
