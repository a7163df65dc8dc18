import BlobStoreHTTP
import Foundation
import Testing

private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

private func date(_ offset: TimeInterval) -> String {
    HTTPDate.format(t0.addingTimeInterval(offset))
}

private var privateCache: HTTPCachePolicy { HTTPCachePolicy() }

private var sharedCache: HTTPCachePolicy {
    var policy = HTTPCachePolicy()
    policy.isShared = true
    return policy
}

private func lifetime(_ headers: HTTPHeaders, status: Int = 200, policy: HTTPCachePolicy = privateCache)
    -> Freshness
{
    Freshness.lifetime(status: status, headers: headers, responseTime: t0, policy: policy)
}

private func decide(
    _ responseHeaders: HTTPHeaders, status: Int = 200, method: String = "GET", request: HTTPHeaders = [:],
    policy: HTTPCachePolicy = privateCache
) -> Storability {
    Storability.decide(
        method: method, requestHeaders: request, status: status, responseHeaders: responseHeaders,
        freshness: lifetime(responseHeaders, status: status, policy: policy), policy: policy)
}

private func stored(_ headers: HTTPHeaders, status: Int = 200) -> StoredResponse {
    StoredResponse(url: "http://h/x", status: status, headers: headers, vary: nil, requestTime: t0, responseTime: t0)
}

@Suite("Cache-Control parsing")
struct CacheControlTests {
    @Test func directivesAndArguments() {
        let control = CacheControl("public, max-age=60, S-MAXAGE=\"120\", stale-while-revalidate=30, must-revalidate")
        #expect(control.isPublic)
        #expect(control.maxAge == 60)
        #expect(control.sharedMaxAge == 120)
        #expect(control.staleWhileRevalidate == 30)
        #expect(control.mustRevalidate)
        #expect(!control.noStore && !control.noCache && !control.isPrivate)
    }

    @Test func qualifiedNoCacheAndPrivateNameFieldsToOmit() {
        let control = CacheControl("no-cache=\"Set-Cookie, X-A\", private=\"X-B\"")
        #expect(!control.noCache)
        #expect(!control.isPrivate)
        #expect(control.omittedFields == ["set-cookie", "x-a", "x-b"])
    }

    @Test func invalidSecondsAreIgnoredAndHugeOnesClamped() {
        #expect(CacheControl("max-age=-1").maxAge == nil)
        #expect(CacheControl("max-age=abc").maxAge == nil)
        #expect(CacheControl("max-age").maxAge == nil)
        #expect(CacheControl("max-age=99999999999999999999999").maxAge == 2_147_483_648)
    }

    @Test("Every delta-seconds is clamped to 2^31 (RFC 9111 §1.2.2)")
    func deltaSecondsAreClampedTo2Pow31() {
        let huge = "9223372036854775807"
        let control = CacheControl("max-age=\(huge), s-maxage=\(huge), stale-while-revalidate=2147483649")
        #expect(control.maxAge == 2_147_483_648)
        #expect(control.sharedMaxAge == 2_147_483_648)
        #expect(control.staleWhileRevalidate == 2_147_483_648)
        #expect(CacheControl("max-age=2147483647").maxAge == 2_147_483_647)
    }
}

@Suite("Absurd server values never trap")
struct AbsurdServerValueTests {
    @Test("Age near Int.max is served as 2^31")
    func hugeAgeIsClampedWhenServed() {
        for age in ["9223372036854775807", "99999999999999999999999", "2147483649"] {
            let response = stored(["Cache-Control": "max-age=600", "Age": age, "ETag": "\"a\""])
            #expect(response.servedHeaders(at: t0)["Age"] == "2147483648")
            #expect(response.use(at: t0, requestHeaders: [:], policy: privateCache) == .revalidate)
        }
    }

    @Test("A huge max-age or s-maxage is a lifetime of 2^31 seconds")
    func hugeMaxAgeAndSharedMaxAge() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=9223372036854775807, s-maxage=9223372036854775808"]
        #expect(lifetime(headers).lifetime == 2_147_483_648)
        #expect(lifetime(headers, policy: sharedCache).lifetime == 2_147_483_648)
        #expect(stored(headers).servedHeaders(at: t0.addingTimeInterval(1))["Age"] == "1")
    }

    @Test("Date and Expires far in the past or future")
    func farDates() {
        let past = "Mon, 01 Jan 0001 00:00:00 GMT"
        let future = "Fri, 31 Dec 9999 23:59:59 GMT"
        let ancient = stored(["Date": past, "Expires": future])
        #expect(ancient.freshness(privateCache).lifetime > 0)
        #expect(ancient.servedHeaders(at: t0)["Age"] == "2147483648")
        let fromTheFuture = stored(["Date": future, "Expires": past])
        #expect(fromTheFuture.freshness(privateCache).lifetime == 0)
        #expect(fromTheFuture.servedHeaders(at: t0)["Age"] == "0")
    }

    @Test func firstDuplicateWins() {
        #expect(CacheControl("max-age=10, max-age=20").maxAge == 10)
    }
}

@Suite("Freshness lifetime and age (RFC 9111 §4.2)")
struct FreshnessTests {
    @Test func sharedMaxAgeOnlyInASharedCache() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=60, s-maxage=600"]
        #expect(lifetime(headers).lifetime == 60)
        #expect(lifetime(headers, policy: sharedCache).lifetime == 600)
    }

    @Test func maxAgeBeatsExpires() {
        let headers: HTTPHeaders = ["Cache-Control": "max-age=60", "Date": date(0), "Expires": date(3600)]
        #expect(lifetime(headers).lifetime == 60)
    }

    @Test func expiresMinusDate() {
        #expect(lifetime(["Date": date(0), "Expires": date(3600)]).lifetime == 3600)
        #expect(lifetime(["Date": date(0), "Expires": date(-10)]).lifetime == 0)
    }

    @Test func invalidExpiresIsAlreadyStale() {
        let freshness = lifetime(["Expires": "0", "Last-Modified": date(-100_000)])
        #expect(freshness.lifetime == 0)
        #expect(!freshness.isHeuristic)
    }

    @Test func heuristicIsTenPercentOfLastModifiedAgeAndBounded() {
        let guess = lifetime(["Date": date(0), "Last-Modified": date(-1000)])
        #expect(guess.lifetime == 100)
        #expect(guess.isHeuristic)
        #expect(lifetime(["Date": date(0), "Last-Modified": date(-100 * 86_400)]).lifetime == 86_400)
        #expect(lifetime(["Date": date(0), "Last-Modified": date(-1000)], status: 302).lifetime == 0)
    }

    @Test func noInformationMeansZero() {
        #expect(lifetime([:]).lifetime == 0)
    }

    @Test("current_age = max(apparent_age, age_value + response_delay) + resident_time")
    func currentAgeFollowsTheFormula() {
        // Sent at t0, answered at t0+2 with Date t0-5 (a slow clock) and Age 10; asked at t0+32.
        let headers: HTTPHeaders = ["Date": date(-5), "Age": "10"]
        let age = Freshness.currentAge(
            headers: headers, requestTime: t0, responseTime: t0.addingTimeInterval(2), now: t0.addingTimeInterval(32))
        // apparent_age = 7, corrected_age_value = 10 + 2 = 12, resident_time = 30.
        #expect(age == 42)
        let noAge = Freshness.currentAge(
            headers: ["Date": date(-5)], requestTime: t0, responseTime: t0.addingTimeInterval(2),
            now: t0.addingTimeInterval(32))
        #expect(noAge == 37)
    }

    @Test func httpDatesInAllThreeForms() {
        let expected = Date(timeIntervalSince1970: 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
        #expect(HTTPDate.parse("yesterday") == nil)
        #expect(HTTPDate.format(expected) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // Names in any case, surrounding spaces; the day name is not checked against the date.
        #expect(HTTPDate.parse("  sun, 06 NOV 1994 08:49:37 gmt ") == expected)
        #expect(HTTPDate.parse("Mon, 06 Nov 1994 08:49:37 GMT") == expected)
        #expect(HTTPDate.parse("Sun, 29 Feb 2000 00:00:00 GMT") == Date(timeIntervalSince1970: 951_782_400))
    }

    @Test func invalidHTTPDatesAreNil() {
        for text in [
            "", "Sun, 06 Nov 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 32 Nov 1994 08:49:37 GMT",
            "Sun, 29 Feb 1900 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:00 GMT",
            "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 94 08:49:37 GMT", "Sun, 006 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT junk", "Sun, 06 Nov 1994 8:49:37 GMT", "0", "-1",
            "Sun, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49:37 94",
        ] {
            #expect(HTTPDate.parse(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func httpDatesRoundTripOverTenThousandYears() {
        var random = SystemRandomNumberGenerator()
        // From 0001-01-01 to 9999-12-31, whole seconds.
        for _ in 0..<10_000 {
            let seconds = Int.random(in: -62_135_596_800...253_402_300_799, using: &random)
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let text = HTTPDate.format(date)
            #expect(HTTPDate.parse(text) == date, "\(seconds) → \(text)")
        }
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 GMT")
    }
}

@Suite("What may be stored (RFC 9111 §3)")
struct StorabilityTests {
    @Test func longLivedGoesToDiskShortLivedToMemory() {
        #expect(decide(["Cache-Control": "max-age=600"]) == .memoryAndDisk)
        #expect(decide(["Cache-Control": "max-age=299"]) == .memoryOnly)
        var policy = HTTPCachePolicy()
        policy.minimumDiskLifetime = 0
        #expect(decide(["Cache-Control": "max-age=1"], policy: policy) == .memoryAndDisk)
    }

    @Test func noStoreInRequestOrResponse() {
        #expect(decide(["Cache-Control": "no-store, max-age=600"]) == .notStored("the response says no-store"))
        #expect(
            decide(["Cache-Control": "max-age=600"], request: ["Cache-Control": "no-store"])
                == .notStored("the request says no-store"))
    }

    @Test func privateOnlyInAPrivateCache() {
        #expect(decide(["Cache-Control": "private, max-age=600"]) == .memoryAndDisk)
        #expect(
            decide(["Cache-Control": "private, max-age=600"], policy: sharedCache)
                == .notStored("the response is private and this cache is shared"))
    }

    @Test func authorizationInASharedCacheNeedsPermission() {
        let request: HTTPHeaders = ["Authorization": "Bearer x"]
        #expect(decide(["Cache-Control": "max-age=600"], request: request) == .memoryAndDisk)
        #expect(
            decide(["Cache-Control": "max-age=600"], request: request, policy: sharedCache)
                == .notStored("the request has Authorization and the response does not allow a shared cache"))
        for allowing in ["public, max-age=600", "must-revalidate, max-age=600", "s-maxage=600"] {
            #expect(decide(["Cache-Control": allowing], request: request, policy: sharedCache) == .memoryAndDisk)
        }
    }

    @Test func onlyCacheableMethodsAndStatuses() {
        #expect(decide(["Cache-Control": "max-age=600"], method: "POST") == .notStored("the method is POST"))
        #expect(decide(["Cache-Control": "max-age=600"], method: "HEAD") == .notStored("the method is HEAD"))
        // Any final status with explicit freshness (RFC 9111 §3), heuristics only for some.
        #expect(decide(["Cache-Control": "max-age=600"], status: 500) == .memoryAndDisk)
        #expect(decide(["Cache-Control": "max-age=600"], status: 599) == .memoryAndDisk)
        #expect(
            decide(["Last-Modified": "Sun, 06 Nov 1994 08:49:37 GMT"], status: 500)
                == .notStored("the status 500 needs explicit freshness"))
        #expect(decide(["Cache-Control": "max-age=600"], status: 206) == .notStored("the status 206 is not cacheable"))
        #expect(decide(["Cache-Control": "max-age=600"], status: 304) == .notStored("the status 304 is not cacheable"))
        #expect(decide(["Cache-Control": "max-age=600"], status: 103) == .notStored("the status 103 is not cacheable"))
        #expect(decide(["Cache-Control": "max-age=600"], status: 404) == .memoryAndDisk)
        #expect(decide(["Cache-Control": "max-age=600"], status: 302) == .memoryAndDisk)
        #expect(decide(["ETag": "\"a\""], status: 302) == .notStored("the status 302 needs explicit freshness"))
    }

    @Test func varyStarIsNeverStoredButNamedVaryIs() {
        #expect(decide(["Cache-Control": "max-age=600", "Vary": "*"]) == .notStored("the response varies on *"))
        #expect(decide(["Cache-Control": "max-age=600", "Vary": "Accept-Encoding"]) == .memoryAndDisk)
    }

    @Test func uselessResponsesAreNotStored() {
        #expect(decide([:]) == .notStored("the response is stale at once and has no validator"))
        #expect(decide(["ETag": "\"a\""]) == .memoryOnly)
        #expect(
            decide(["Cache-Control": "no-cache, max-age=600"])
                == .notStored("the response says no-cache and has no validator"))
        #expect(decide(["Cache-Control": "no-cache, max-age=600", "ETag": "\"a\""]) == .memoryAndDisk)
    }
}

@Suite("Using a stored response (RFC 9111 §4)")
struct ResponseUseTests {
    @Test func freshThenStale() {
        let response = stored(["Cache-Control": "max-age=60", "Date": date(0), "ETag": "\"a\""])
        #expect(response.use(at: t0.addingTimeInterval(59), requestHeaders: [:], policy: privateCache) == .fresh)
        #expect(response.use(at: t0.addingTimeInterval(61), requestHeaders: [:], policy: privateCache) == .revalidate)
        let withoutValidator = stored(["Cache-Control": "max-age=60", "Date": date(0)])
        #expect(
            withoutValidator.use(at: t0.addingTimeInterval(61), requestHeaders: [:], policy: privateCache)
                == .unusable)
    }

    @Test func noCacheAlwaysRevalidates() {
        let response = stored(["Cache-Control": "no-cache, max-age=600", "ETag": "\"a\""])
        #expect(response.use(at: t0, requestHeaders: [:], policy: privateCache) == .revalidate)
        let plain = stored(["Cache-Control": "max-age=600", "ETag": "\"a\""])
        #expect(plain.use(at: t0, requestHeaders: ["Cache-Control": "no-cache"], policy: privateCache) == .revalidate)
        #expect(plain.use(at: t0, requestHeaders: ["Pragma": "no-cache"], policy: privateCache) == .revalidate)
    }

    @Test func staleWhileRevalidateWindowUnlessMustRevalidate() {
        let response = stored(["Cache-Control": "max-age=60, stale-while-revalidate=30", "ETag": "\"a\""])
        #expect(
            response.use(at: t0.addingTimeInterval(80), requestHeaders: [:], policy: privateCache)
                == .staleWhileRevalidate)
        #expect(response.use(at: t0.addingTimeInterval(95), requestHeaders: [:], policy: privateCache) == .revalidate)
        var synchronous = privateCache
        synchronous.servesStaleWhileRevalidating = false
        #expect(response.use(at: t0.addingTimeInterval(80), requestHeaders: [:], policy: synchronous) == .revalidate)
        let strict = stored(["Cache-Control": "max-age=60, stale-while-revalidate=30, must-revalidate", "ETag": "x"])
        #expect(strict.use(at: t0.addingTimeInterval(80), requestHeaders: [:], policy: privateCache) == .revalidate)
    }

    @Test("s-maxage implies proxy-revalidate in a shared cache (RFC 9111 §5.2.2.10)")
    func sharedMaxAgeImpliesProxyRevalidate() {
        let control = "max-age=60, s-maxage=60, stale-while-revalidate=30"
        let response = stored(["Cache-Control": control, "ETag": "\"a\""])
        let later = t0.addingTimeInterval(80)
        #expect(response.use(at: later, requestHeaders: [:], policy: sharedCache) == .revalidate)
        #expect(response.use(at: later, requestHeaders: [:], policy: privateCache) == .staleWhileRevalidate)
    }

    @Test func notModifiedReplacesHeadersButNotContentLength() {
        let response = stored(["Cache-Control": "max-age=0", "ETag": "\"a\"", "Content-Length": "5", "X-Old": "1"])
        let updated = response.updatingHeaders(
            with: [
                "Cache-Control": "max-age=600", "Content-Length": "0", "Connection": "close", "X-New": "2",
                "Content-Encoding": "gzip", "Content-Range": "bytes 0-0/1",
            ], receivedAt: t0)
        #expect(updated["Cache-Control"] == "max-age=600")
        #expect(updated["Content-Length"] == "5")
        #expect(updated["X-Old"] == "1")
        #expect(updated["X-New"] == "2")
        #expect(updated["Connection"] == nil)
        #expect(updated["Content-Encoding"] == nil)
        #expect(updated["Content-Range"] == nil)
    }

    @Test("After a 304 without Date or Age the response is fresh for its max-age again")
    func notModifiedRestartsTheAge() {
        let response = StoredResponse(
            url: "http://h/x", status: 200,
            headers: ["Cache-Control": "max-age=600", "ETag": "\"a\"", "Date": date(-2000), "Age": "500"],
            vary: nil, requestTime: t0.addingTimeInterval(-2000), responseTime: t0.addingTimeInterval(-2000))
        #expect(response.use(at: t0, requestHeaders: [:], policy: privateCache) == .revalidate)
        var refreshed = response
        refreshed.headers = response.updatingHeaders(with: ["ETag": "\"a\""], receivedAt: t0)
        refreshed.requestTime = t0
        refreshed.responseTime = t0
        #expect(refreshed.headers["Age"] == nil)
        #expect(refreshed.headers["Date"] == date(0))
        #expect(refreshed.use(at: t0.addingTimeInterval(590), requestHeaders: [:], policy: privateCache) == .fresh)
        let withDate = response.updatingHeaders(with: ["Date": date(-1), "Age": "3"], receivedAt: t0)
        #expect(withDate["Date"] == date(-1))
        #expect(withDate["Age"] == "3")
    }

    @Test("A 304 that changes only Date and Age leaves an always-revalidated record unwritten")
    func refreshOfAnAlwaysRevalidatedResponse() {
        let base: HTTPHeaders = ["ETag": "\"a\"", "Date": date(0), "Age": "4", "Server": "s"]
        let times: HTTPHeaders = ["Date": date(30), "ETag": "\"a\"", "Server": "s", "Age": "2"]
        for control in ["no-cache", "max-age=0, must-revalidate", "no-cache, max-age=600"] {
            var headers = base
            headers.set("Cache-Control", control)
            let response = stored(headers)
            var notModified = times
            notModified.set("Cache-Control", control)
            #expect(response.leavesUseUnchanged(refreshedBy: notModified, policy: sharedCache))
            #expect(response.leavesUseUnchanged(refreshedBy: times, policy: sharedCache))
            // Fields that describe the body, and hop-by-hop ones, are not taken from a 304.
            notModified.set("Content-Length", "0")
            notModified.set("Connection", "close")
            #expect(response.leavesUseUnchanged(refreshedBy: notModified, policy: sharedCache))
            // A field the 304 changes or adds is written.
            notModified.set("X-Version", "2")
            #expect(!response.leavesUseUnchanged(refreshedBy: notModified, policy: sharedCache))
            var longer = times
            longer.set("Cache-Control", "max-age=600")
            #expect(!response.leavesUseUnchanged(refreshedBy: longer, policy: sharedCache))
            var otherServer = times
            otherServer.set("Server", "t")
            #expect(!response.leavesUseUnchanged(refreshedBy: otherServer, policy: sharedCache))
        }
        // A response that may be used without a revalidation keeps its new times.
        for control in [
            "max-age=0", "max-age=60", "max-age=0, stale-while-revalidate=60", "must-revalidate, max-age=5",
        ] {
            var headers = base
            headers.set("Cache-Control", control)
            let response = stored(headers)
            #expect(!response.leavesUseUnchanged(refreshedBy: times, policy: sharedCache), "\(control)")
        }
    }

    @Test("A 304 that repeats a field leaves it where it is; one it changes moves to the end")
    func notModifiedKeepsRepeatedFieldsInPlace() {
        let response = stored(["ETag": "\"a\"", "Server": "s", "X-A": "1", "Date": date(0)])
        let updated = response.updatingHeaders(with: ["Server": "s", "X-A": "2", "Date": date(5)], receivedAt: t0)
        #expect(updated.fields.map(\.name) == ["ETag", "Server", "X-A", "Date"])
        #expect(updated["X-A"] == "2")
        #expect(updated["Date"] == date(5))
    }

    @Test func hopByHopHeadersAreNotStored() {
        let response = stored(["Connection": "close, X-Hop", "X-Hop": "1", "Transfer-Encoding": "chunked", "A": "b"])
        #expect(response.headers["Connection"] == nil)
        #expect(response.headers["X-Hop"] == nil)
        #expect(response.headers["Transfer-Encoding"] == nil)
        #expect(response.headers["A"] == "b")
    }
}

@Suite("Vary secondary keys")
struct VaryKeyTests {
    @Test func namesAreCaseInsensitiveAndSorted() {
        let key = VaryKey(names: ["Accept-Encoding", "accept-language"], request: ["ACCEPT-ENCODING": "gzip"])
        #expect(key.names == ["accept-encoding", "accept-language"])
        #expect(key.suffix == "accept-encoding: gzip\naccept-language")
    }

    @Test func valuesAreNormalized() {
        let spaced = VaryKey(names: ["Accept-Encoding"], request: ["Accept-Encoding": "gzip ,\t br"])
        let tight = VaryKey(names: ["Accept-Encoding"], request: ["Accept-Encoding": "gzip, br"])
        #expect(spaced == tight)
        let other = VaryKey(names: ["Accept-Encoding"], request: ["Accept-Encoding": "br, gzip"])
        #expect(spaced != other)
    }

    @Test func absentDiffersFromEmpty() {
        let absent = VaryKey(names: ["Accept"], request: [:])
        let empty = VaryKey(names: ["Accept"], request: ["Accept": ""])
        #expect(absent != empty)
    }
}

extension StoredResponse {
    /// ``refreshLeavesUseUnchanged(changedTimesOnly:policy:)`` of the refresh by a 304 with
    /// `notModified`.
    fileprivate func leavesUseUnchanged(refreshedBy notModified: HTTPHeaders, policy: HTTPCachePolicy) -> Bool {
        let refresh = refreshed(byNotModified: notModified, requestTime: Date(), responseTime: Date())
        return refreshLeavesUseUnchanged(changedTimesOnly: refresh.changedTimesOnly, policy: policy)
    }
}
