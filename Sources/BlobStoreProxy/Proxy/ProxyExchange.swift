import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc

/// One request from a client and its answer: from the cache when RFC 9111 allows, else from the
/// origin (streamed to the client while it is stored, when it may be stored).
final class ProxyExchange {
    let context: ProxyContext
    let client: WireConnection
    let request: RequestHead
    /// When the request head arrived.
    let started = MonotonicInstant.now
    /// What the access log and the `Cache-Status` field say about it.
    var cacheStatus = CacheStatus()
    /// The status sent, for the log.
    var sentStatus = 0
    /// Body bytes sent, for the log.
    var sentBytes = 0
    /// Whether the client connection may serve another request after this one.
    var keepAlive: Bool

    init(context: ProxyContext, client: WireConnection, request: RequestHead) {
        self.context = context
        self.client = client
        self.request = request
        self.keepAlive = request.keepsAlive
    }

    var cache: HTTPCache { context.cache }
    var policy: HTTPCachePolicy { context.cache.policy }

    /// Answers the request.
    ///
    /// - Returns: Whether the connection may carry another request.
    /// - Throws: ``Rejection`` for a request the proxy refuses before sending anything; `network`
    ///   when the client connection fails (nothing more can be sent on it).
    func respond(lookedUp: StoredLookup? = nil) async throws -> Bool {
        context.metrics.requests.add(1, ordering: .relaxed)
        defer { logged() }
        let framing = try HeadParser.framing(of: request)
        let target = try lookedUp?.target ?? context.target(of: request)
        var body = BodyReader(connection: client, framing: framing)
        if request.expectsContinue, framing != .none {
            // The proxy takes the body itself and forwards it with the request (RFC 9110 §10.1.1).
            try client.write(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
            try await client.flush()
        }
        let isLookup = request.method == "GET" || request.method == "HEAD"
        if let url = cachedURL(framing: framing, target: target) {
            try await answerFromCache(url: url, target: target, lookedUp: lookedUp)
        } else {
            cacheStatus.forward = isLookup ? (saysNoStore ? "request" : "bypass") : "method"
            try await forward(to: target, body: &body, stored: nil)
        }
        if !body.isFinished { keepAlive = false }
        return keepAlive
    }

    /// What the cache held for a request when it was looked up: the stored response with its
    /// body, or `nil` for none; and where the request goes, found on the way.
    struct StoredLookup {
        var target: ForwardTarget
        var found: (StoredResponse, StoredBody)?
    }

    /// What an event loop's thread made of the request (``respondIfFreshInMemory()``).
    enum LoopAnswer {
        /// Answered; whether the connection may carry another request.
        case answered(keepAlive: Bool)
        /// Nothing sent or counted; ``respond(lookedUp:)`` answers it in a task, with a new
        /// exchange, from what the cache held (`nil` when it was not looked up).
        case notAnswered(StoredLookup?)
    }

    /// Answers the request if a stored response that is fresh (or stale within the request's
    /// `max-stale`) and read into memory answers it: what an event loop does before it starts a
    /// task, which costs more than such an answer. What the socket does not take at once waits in
    /// the connection for ``WireConnection/flush()``.
    ///
    /// - Throws: `network` when the client connection fails.
    func respondIfFreshInMemory() throws -> LoopAnswer {
        guard let framing = try? HeadParser.framing(of: request),
            let target = try? context.target(of: request),
            let url = cachedURL(framing: framing, target: target)
        else { return .notAnswered(nil) }
        let found = lookUp(url, key: target.storeKey)
        // A lookup the store failed is tried again on the other thread, which logs why.
        guard cacheStatus.detail == nil else { return .notAnswered(nil) }
        guard let (stored, body) = found, case .bytes(let data) = body else {
            return .notAnswered(StoredLookup(target: target, found: found))
        }
        let now = Date()
        switch stored.use(at: now, requestHeaders: request.headers, policy: policy) {
        case .fresh, .staleAccepted: break
        case .staleWhileRevalidate, .revalidate, .unusable:
            return .notAnswered(StoredLookup(target: target, found: found))
        }
        context.metrics.requests.add(1, ordering: .relaxed)
        defer { logged() }
        noteHit(stored, at: now)
        let (head, range) = answer(stored, body: body)
        try StoredBody.write(data, range, after: head, to: client)
        return .answered(keepAlive: keepAlive)
    }

    /// The URL to look the request up under, when the cache may answer it: a GET or HEAD
    /// without a body, preconditions (`If-Match`, `If-Unmodified-Since`, which send it to the
    /// origin whatever is stored) or `no-store` (then it is sent on, nothing of it or its answer
    /// is stored, and it is not answered from what is).
    private func cachedURL(framing: BodyFraming, target: ForwardTarget) -> URL? {
        guard request.method == "GET" || request.method == "HEAD", framing == .none, !bypassesCache, !saysNoStore
        else { return nil }
        return target.url
    }

    /// Whether the request has preconditions that send it to the origin.
    private var bypassesCache: Bool {
        request.headers.contains("If-Match") || request.headers.contains("If-Unmodified-Since")
    }

    /// Whether the request says `no-store`.
    private var saysNoStore: Bool {
        CacheControl(request.headers["Cache-Control"]).noStore
    }

    /// Writes the exchange's access log line, when there is a log.
    private func logged() {
        guard context.log.isOn else { return }
        context.log.record(
            peer: client.peer, request: request,
            status: sentStatus, bytes: sentBytes,
            cacheStatus: cacheStatus, cacheName: context.configuration.name,
            nanoseconds: MonotonicInstant.now.nanoseconds &- started.nanoseconds, batch: client.loop?.logBatch)
    }

    // MARK: - From the cache

    /// Answers with `stored`, used without a request to the origin at `now`.
    private func serveHit(_ stored: StoredResponse, body: StoredBody, at now: Date) async throws {
        noteHit(stored, at: now)
        try await serve(stored, body: body)
    }

    /// Counts a hit on `stored` at `now`, for the metrics and the `Cache-Status` field.
    private func noteHit(_ stored: StoredResponse, at now: Date) {
        context.metrics.hits.add(1, ordering: .relaxed)
        cacheStatus.hit = true
        cacheStatus.ttl = ttl(of: stored, at: now)
    }

    /// Takes back a hit whose body could not be sent (``StoredBody/Gone``), nothing sent: the
    /// metrics, the `Cache-Status` and what the log would say.
    private func forgetHit() {
        context.metrics.hits.subtract(1, ordering: .relaxed)
        forgetServed()
        cacheStatus = CacheStatus()
    }

    /// Takes back what an answer from a stored response counted when its body could not be sent
    /// (``StoredBody/Gone``), nothing sent: the bytes from the cache, and what the log would say.
    func forgetServed() {
        context.metrics.bytesFromCache.subtract(sentBytes, ordering: .relaxed)
        (sentStatus, sentBytes) = (0, 0)
    }

    /// Answers a GET or HEAD from a stored response when one may be used, else from the origin
    /// (with a conditional request when a stored one has a validator).
    private func answerFromCache(url: URL, target: ForwardTarget, lookedUp: StoredLookup?) async throws {
        let requestControl = CacheControl(request.headers["Cache-Control"])
        var collapsedOnce = false
        // A stale response without a validator: it answers only if the origin fails and
        // `stale-if-error` allows.
        var fallback: (StoredResponse, StoredBody)?
        // What an event loop found is used once; a collapsed request looks again.
        var lookedUp = lookedUp
        // A stored chunked body gone before it could be sent makes the request a miss.
        var bodyGone = false
        while true {
            let found: (StoredResponse, StoredBody)?
            if let prior = lookedUp.take() {
                found = await verified(prior.found)
            } else {
                found = bodyGone ? nil : await verified(lookUp(url, key: target.storeKey))
            }
            if let (stored, body) = found {
                let now = Date()
                let use = stored.use(at: now, requestHeaders: request.headers, policy: policy)
                switch use {
                case .fresh, .staleAccepted, .staleWhileRevalidate:
                    do {
                        if use == .staleWhileRevalidate {
                            revalidateInBackground(stored, body: body, url: url, target: target)
                        }
                        return try await serveHit(stored, body: body, at: now)
                    } catch is StoredBody.Gone {
                        forgetHit()
                        bodyGone = true
                        continue
                    }
                case .revalidate:
                    if requestControl.onlyIfCached { return try answerOnlyIfCached() }
                    context.metrics.revalidations.add(1, ordering: .relaxed)
                    cacheStatus.forward = requestControl.noCache || requestControl.maxAge != nil ? "request" : "stale"
                    var none = BodyReader(connection: client, framing: .none)
                    try await forward(to: target, body: &none, stored: (stored, body))
                    return
                case .unusable:
                    cacheStatus.forward = "stale"
                    fallback = (stored, body)
                }
            } else {
                cacheStatus.forward = "uri-miss"
            }
            if requestControl.onlyIfCached { return try answerOnlyIfCached() }
            // A miss: the first request for the URL fetches, the others wait for its response.
            let key = (target.storeKey ?? HTTPCache.key(for: url)).string
            let collapsible =
                !collapsedOnce && request.method == "GET" && !Self.isConditional(request.headers)
                && !requestControl.noStore && !target.isUncacheable(at: .now)
            if collapsible, let flight = context.collapsing.lead(key) {
                collapsedOnce = true
                context.metrics.collapsed.add(1, ordering: .relaxed)
                if await context.collapsing.wait(
                    for: flight, timeout: context.configuration.collapseTimeout, on: client.loop)
                {
                    cacheStatus.collapsed = true
                    continue
                }
            }
            let leads = collapsible && !collapsedOnce
            defer { if leads { context.collapsing.finish(key) } }
            context.metrics.misses.add(1, ordering: .relaxed)
            var none = BodyReader(connection: client, framing: .none)
            try await forward(to: target, body: &none, stored: fallback, conditional: false)
            return
        }
    }

    /// The stored response for `url` (entry key `key`) matching the request's `Vary` fields;
    /// `nil` for none or when the store fails (a failing store makes every request a miss, never
    /// an error).
    private func lookUp(_ url: URL, key: StoreKey?) -> (StoredResponse, StoredBody)? {
        do {
            return try StoredBody.lookUp(
                url, key: key, in: cache, requestHeaders: request.headers, records: client.loop?.records)
        } catch {
            cacheStatus.detail = "the store failed: \(error)"
            return nil
        }
    }

    /// `found` with a body opened unverified (``StoredBody/unverified(_:count:)``) verified, on a
    /// thread of the system's pool while the task waits, before anything is decided from it: a
    /// body found damaged (it is repaired) or that the store fails to read makes it a miss, as if
    /// the lookup had found it so, whether the response is then served, revalidated or kept for
    /// `stale-if-error`.
    func verified(_ found: (StoredResponse, StoredBody)?) async -> (StoredResponse, StoredBody)? {
        guard let (stored, body) = found else { return nil }
        do {
            return try await body.verified().map { (stored, $0) }
        } catch {
            cacheStatus.detail = "the store failed: \(error)"
            return nil
        }
    }

    /// `only-if-cached` with nothing usable stored: 504 (RFC 9111 §5.2.1.7).
    private func answerOnlyIfCached() throws {
        cacheStatus.forward = nil
        cacheStatus.detail = "only-if-cached"
        try sendError(504, "nothing usable is stored and the request says only-if-cached")
    }

    /// The freshness left, in whole seconds, negative when stale.
    private func ttl(of stored: StoredResponse, at now: Date) -> Int {
        let left = stored.freshness(policy).lifetime - stored.age(at: now)
        return Int(
            max(-Double(CacheControl.maximumSeconds), min(Double(CacheControl.maximumSeconds), left.rounded(.down))))
    }

    /// Whether `headers` make a request conditional on the client's own copy, or partial: its
    /// answer may not be the full response that other requests for the URL wait for.
    static func isConditional(_ headers: HTTPHeaders) -> Bool {
        headers.contains("If-None-Match") || headers.contains("If-Modified-Since") || headers.contains("Range")
    }

    // MARK: - Invalidation

    /// Removes what is stored for `url`, and for the same-origin URLs in the response's
    /// `Location` and `Content-Location`, after an unsafe request succeeded (RFC 9111 §4.4).
    func invalidate(_ url: URL, location: String? = nil, contentLocation: String? = nil) {
        var urls = [url]
        for value in [location, contentLocation].compactMap({ $0 }) {
            if let other = URL(string: value, relativeTo: url)?.absoluteURL, other.host == url.host,
                other.port == url.port
            {
                urls.append(other)
            }
        }
        for url in urls { _ = try? cache.invalidate(url) }
    }
}
