import BlobStoreHTTP
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

private var proxyPolicy: HTTPCachePolicy {
    var policy = HTTPCachePolicy()
    policy.isShared = true
    policy.targetedField = "CDN-Cache-Control"
    return policy
}

private func response(_ headers: HTTPHeaders, receivedAt time: Date = t0) -> StoredResponse {
    StoredResponse(url: "http://o/a", status: 200, headers: headers, vary: nil, requestTime: time, responseTime: time)
}

/// The rules a shared cache in front of origins needs, beside those of a private one.
@Suite("Shared-cache rules: targeted fields, Age, request directives, qualified directives")
struct SharedCacheRulesTests {
    @Test("CDN-Cache-Control replaces Cache-Control when valid, and is ignored when it is not a Structured Field")
    func targetedField() {
        let policy = proxyPolicy
        #expect(
            policy.responseDirectives(["Cache-Control": "no-store", "CDN-Cache-Control": "max-age=600"]).maxAge == 600)
        #expect(
            policy.responseDirectives(["Cache-Control": "no-store", "CDN-Cache-Control": "max-age=600"]).noStore
                == false)
        #expect(policy.responseDirectives(["Cache-Control": "max-age=600", "CDN-Cache-Control": "no-store"]).noStore)
        #expect(policy.responseDirectives(["CDN-Cache-Control": "MaX-AgE=60"]).maxAge == 60)
        for invalid in ["max-age=600, &&&&&", "max-age=\"600\"", "max-age=1.5", "max-age =600", "a,,b", ""] {
            let control = policy.responseDirectives(["Cache-Control": "no-store", "CDN-Cache-Control": invalid])
            #expect(control.noStore, "\(invalid.debugDescription) should be ignored")
        }
        // Without a targeted field in the policy, CDN-Cache-Control means nothing.
        var plain = HTTPCachePolicy()
        plain.isShared = true
        #expect(plain.responseDirectives(["Cache-Control": "no-store", "CDN-Cache-Control": "max-age=600"]).noStore)
    }

    @Test("Age is the first value of the first line, parameters dropped; anything else is ignored")
    func ageParsing() {
        let ages: [(String, TimeInterval)] = [
            ("7200, 0", 7200), ("0, 7200", 0), ("7200;foo=bar", 7200), ("-10", 0), ("1.5", 0), ("old", 0),
            ("2147483649", 2_147_483_648),
        ]
        for (value, expected) in ages {
            let age = Freshness.currentAge(
                headers: ["Date": HTTPDate.format(t0), "Age": value], requestTime: t0, responseTime: t0, now: t0)
            #expect(age == expected, "Age: \(value)")
        }
        let twoLines = HTTPHeaders([.init(name: "Age", value: "7200"), .init(name: "Age", value: "0")])
        #expect(Freshness.currentAge(headers: twoLines, requestTime: t0, responseTime: t0, now: t0) == 7200)
    }

    @Test("max-stale accepts a stale response, min-fresh refuses a nearly stale one, must-revalidate wins")
    func requestDirectives() {
        let policy = proxyPolicy
        let stored = response(["Cache-Control": "max-age=10"])
        let later = t0.addingTimeInterval(15)
        #expect(
            stored.use(at: later, requestHeaders: ["Cache-Control": "max-stale=10"], policy: policy) == .staleAccepted)
        #expect(stored.use(at: later, requestHeaders: ["Cache-Control": "max-stale"], policy: policy) == .staleAccepted)
        #expect(stored.use(at: later, requestHeaders: ["Cache-Control": "max-stale=2"], policy: policy) == .unusable)
        #expect(
            stored.use(at: t0.addingTimeInterval(5), requestHeaders: ["Cache-Control": "min-fresh=8"], policy: policy)
                == .unusable)
        #expect(
            stored.use(at: t0.addingTimeInterval(5), requestHeaders: ["Cache-Control": "min-fresh=2"], policy: policy)
                == .fresh)
        let strict = response(["Cache-Control": "max-age=10, must-revalidate"])
        #expect(strict.use(at: later, requestHeaders: ["Cache-Control": "max-stale"], policy: policy) == .unusable)
        let proxyStrict = response(["Cache-Control": "max-age=10, proxy-revalidate"])
        #expect(proxyStrict.use(at: later, requestHeaders: ["Cache-Control": "max-stale"], policy: policy) == .unusable)
    }

    @Test("stale-if-error covers failures within its window; a disconnected cache may answer stale unless told not to")
    func staleOnErrors() {
        let policy = proxyPolicy
        let stored = response(["Cache-Control": "max-age=10, stale-if-error=60"])
        #expect(stored.mayAnswerOnError(at: t0.addingTimeInterval(30), requestHeaders: [:], policy: policy))
        #expect(!stored.mayAnswerOnError(at: t0.addingTimeInterval(80), requestHeaders: [:], policy: policy))
        let plain = response(["Cache-Control": "max-age=10"])
        #expect(!plain.mayAnswerOnError(at: t0.addingTimeInterval(30), requestHeaders: [:], policy: policy))
        #expect(
            plain.mayAnswerOnError(
                at: t0.addingTimeInterval(30), requestHeaders: ["Cache-Control": "stale-if-error=60"], policy: policy))
        #expect(plain.mayAnswerDisconnected(requestHeaders: [:], policy: policy))
        #expect(!plain.mayAnswerDisconnected(requestHeaders: ["Cache-Control": "no-cache"], policy: policy))
        #expect(
            !response(["Cache-Control": "max-age=10, proxy-revalidate"]).mayAnswerDisconnected(
                requestHeaders: [:], policy: policy))
        #expect(
            !response(["Cache-Control": "max-age=10, s-maxage=10"]).mayAnswerDisconnected(
                requestHeaders: [:], policy: policy))
    }

    @Test("Qualified no-cache and private are stored and reused without the fields they name")
    func qualifiedDirectives() {
        let policy = proxyPolicy
        let headers: HTTPHeaders = [
            "Cache-Control": "max-age=600, no-cache=\"Set-Cookie, X-Secret\", private=\"X-User\"", "Set-Cookie": "a=b",
            "X-Secret": "s", "X-User": "u", "X-Kept": "k",
        ]
        let stored = response(headers)
        #expect(
            Storability.decide(
                method: "GET", requestHeaders: [:], status: 200, responseHeaders: headers,
                freshness: stored.freshness(policy),
                policy: policy) == .memoryAndDisk)
        #expect(stored.use(at: t0, requestHeaders: [:], policy: policy) == .fresh)
        let served = stored.servedHeaders(at: t0)
        #expect(served["Set-Cookie"] == nil)
        #expect(served["X-Secret"] == nil)
        #expect(served["X-User"] == nil)
        #expect(served["X-Kept"] == "k")
    }

    @Test("Delta-seconds with a decimal fraction keep their whole part; whitespace around = ignores the directive")
    func deltaSecondsForms() {
        #expect(CacheControl("max-age=3600.5").maxAge == 3600)
        #expect(CacheControl("max-age=3600.").maxAge == nil)
        #expect(CacheControl("max-age=a3600").maxAge == nil)
        #expect(CacheControl("max-age =3600").maxAge == nil)
        #expect(CacheControl("max-age= 3600").maxAge == nil)
        #expect(CacheControl("max-age=003600").maxAge == 3600)
        #expect(CacheControl("max-age=\"3600\"").maxAge == 3600)
        #expect(CacheControl("max-age='3600'").maxAge == nil)
    }

    @Test("Expires with extra spaces is invalid; asctime's space-padded day is valid")
    func strictDates() {
        #expect(HTTPDate.parse("Sun, 06  Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun,  06 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.parse("Sun Nov 16 08:49:37 1994") == Date(timeIntervalSince1970: 784_975_777))
    }
}
