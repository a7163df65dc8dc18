import BlobStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - Answering requests

extension HTTPCache {
    /// The response to `request`, from the cache when RFC 9111 allows, else from the server
    /// (and then stored when it may be).
    ///
    /// - A fresh stored response answers without a request (``HTTPCacheOutcome/freshHit``).
    /// - A stale one within its `stale-while-revalidate` window answers at once and is
    ///   revalidated in the background (``HTTPCacheOutcome/staleHit``), unless the policy turns
    ///   that off.
    /// - A stale one with `ETag` or `Last-Modified` is revalidated with `If-None-Match` /
    ///   `If-Modified-Since`; a `304` refreshes its headers and its body answers
    ///   (``HTTPCacheOutcome/revalidatedHit``).
    /// - Otherwise the server's response answers (``HTTPCacheOutcome/miss``); one reached through
    ///   a redirect is not stored. A successful unsafe request (`POST`, `PUT`, `DELETE`, …)
    ///   removes what is stored for its URL.
    ///
    /// A request that carries its own `If-None-Match` or `If-Modified-Since` goes to the server.
    ///
    /// - Throws: `BlobStoreError` with code `network` when the request fails, or from
    ///   the store.
    public func data(for request: URLRequest) async throws -> HTTPCacheResult {
        let answer = try await answer(request, bodies: MemoryBodies())
        return HTTPCacheResult(
            url: answer.url, status: answer.response.status, headers: answer.headers, body: answer.body,
            outcome: answer.outcome)
    }

    /// The response to `request`, as ``data(for:)`` answers it, with its body written to `file`
    /// instead of returned: a body of any size, from the cache or from the server, is never held
    /// in memory whole. A miss is received into a file and stored from it.
    ///
    /// A miss is received by the package's own HTTP/1.1 client into a file beside `file`, a piece
    /// at a time in step with the connection (redirects followed; the body kept as the server
    /// sent it, with no `Accept-Encoding` added), stored from there; a stored body is copied out of
    /// the store a piece at a time. The cache's session configuration gives the client its
    /// `timeoutIntervalForRequest` and `httpAdditionalHeaders` (docs/http.md). `file` is created or replaced once the answer
    /// is known; the files beside it (`<file>.1`, `<file>.2`, …) are gone when this returns or
    /// throws, so `file` never holds part of a body. A stale response within its
    /// `stale-while-revalidate` window is revalidated before it answers: a download does not
    /// leave work behind.
    ///
    /// - Parameters:
    ///   - request: The request, as for ``data(for:)``.
    ///   - file: A file URL in a writable directory: the body's destination.
    /// - Returns: The status, headers and outcome, and the body's size.
    /// - Throws: As ``data(for:)`` throws, and `BlobStoreError` when the files cannot be written.
    public func download(for request: URLRequest, to file: URL) async throws -> HTTPCacheDownload {
        let bodies = FileBodies(destination: file)
        do {
            let answer = try await answer(request, bodies: bodies)
            try bodies.finish(with: answer.body)
            return HTTPCacheDownload(
                url: answer.url, status: answer.response.status, headers: answer.headers,
                byteCount: answer.body.count, outcome: answer.outcome)
        } catch {
            bodies.discardAll()
            throw error
        }
    }

    // MARK: - Internals

    /// An answer: the response, the headers to deliver it with, its body and the outcome.
    private struct Answer<Body> {
        var url: URL
        var response: StoredResponse
        var headers: HTTPHeaders
        var body: Body
        var outcome: HTTPCacheOutcome
    }

    /// The flow of ``data(for:)`` and ``download(for:to:)``, with the bodies held by `bodies`.
    private func answer<Bodies: ResponseBodies>(_ request: URLRequest, bodies: Bodies) async throws -> Answer<
        Bodies.Body
    > {
        guard let url = request.url else {
            throw BlobStoreError(.invalidArgument, "The request has no URL. Give it the URL to fetch.")
        }
        let method = (request.httpMethod ?? "GET").uppercased()
        let requestHeaders = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        let conditional = requestHeaders.contains("If-None-Match") || requestHeaders.contains("If-Modified-Since")
        guard Storability.cacheableMethods.contains(method), !conditional else {
            let fetched = try await fetch(request, bodies: bodies)
            if !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(fetched.response.status) {
                try await offload { try self.invalidate(url) }
            }
            return answer(fetched.response, fetched.body, url: url, outcome: .miss)
        }
        let found = try await offload { try bodies.stored(for: url, requestHeaders: requestHeaders, in: self) }
        guard let (stored, body) = found else {
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders, bodies: bodies)
        }
        switch stored.use(at: Date(), requestHeaders: requestHeaders, policy: policy) {
        case .fresh:
            return answer(stored, body, url: url, outcome: .freshHit)
        case .staleAccepted:
            return answer(stored, body, url: url, outcome: .staleHit)
        case .staleWhileRevalidate where bodies.revalidatesInBackground:
            let key = Self.entryKey(for: stored, url: url)
            if revalidating.withLock({ $0.insert(key).inserted }) {
                Task { [self] in
                    defer { revalidating.withLock { _ = $0.remove(key) } }
                    _ = try? await revalidate(
                        stored, body: body, request: request, url: url, requestHeaders: requestHeaders, bodies: bodies)
                }
            }
            return answer(stored, body, url: url, outcome: .staleHit)
        case .staleWhileRevalidate, .revalidate:
            return try await revalidate(
                stored, body: body, request: request, url: url, requestHeaders: requestHeaders, bodies: bodies)
        case .unusable:
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders, bodies: bodies)
        }
    }

    /// Sends a conditional request for `stored`; a 304 refreshes it, anything else replaces it.
    private func revalidate<Bodies: ResponseBodies>(
        _ stored: StoredResponse, body: Bodies.Body, request: URLRequest, url: URL, requestHeaders: HTTPHeaders,
        bodies: Bodies
    ) async throws -> Answer<Bodies.Body> {
        var conditional = request
        if let etag = stored.etag { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = stored.lastModifiedValue {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        let fetched = try await fetch(conditional, bodies: bodies)
        guard fetched.response.status == 304 else {
            try await storeIfSameURL(fetched, requestHeaders: requestHeaders, bodies: bodies)
            return answer(fetched.response, fetched.body, url: url, outcome: .miss)
        }
        guard stored.isValidated(by: fetched.response.headers) else {
            // The 304 is about another representation (RFC 9111 §4.3.4): the stored one is wrong.
            try await offload { try self.removeStored(stored, url: url) }
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders, bodies: bodies)
        }
        let (refreshed, changedTimesOnly) = stored.refreshed(
            byNotModified: fetched.response.headers, requestTime: fetched.response.requestTime,
            responseTime: fetched.response.responseTime)
        let record = refreshed
        if !stored.refreshLeavesUseUnchanged(changedTimesOnly: changedTimesOnly, policy: policy) {
            let putBody = bodies.put(body, into: store)
            try await offload {
                if case .notStored = try self.refresh(record, requestHeaders: requestHeaders, putBody: putBody) {
                    try self.removeStored(record, url: url)
                }
            }
        }
        return answer(refreshed, body, url: url, outcome: .revalidatedHit)
    }

    private func fetchAndStore<Bodies: ResponseBodies>(
        _ request: URLRequest, url: URL, requestHeaders: HTTPHeaders, bodies: Bodies
    ) async throws -> Answer<Bodies.Body> {
        let fetched = try await fetch(request, bodies: bodies)
        try await storeIfSameURL(fetched, requestHeaders: requestHeaders, bodies: bodies)
        return answer(fetched.response, fetched.body, url: url, outcome: .miss)
    }

    /// Stores a fetched response unless the session followed a redirect to get it: the final
    /// response belongs to another URL and says nothing about how long the redirect holds.
    private func storeIfSameURL<Bodies: ResponseBodies>(
        _ fetched: Fetched<Bodies.Body>, requestHeaders: HTTPHeaders, bodies: Bodies
    ) async throws {
        guard !fetched.redirected else { return }
        let putBody = bodies.put(fetched.body, into: store)
        _ = try await offload {
            try self.store(fetched.response, method: "GET", requestHeaders: requestHeaders, putBody: putBody)
        }
    }

    /// A response from the server; `redirected` when its URL is not the request's.
    private typealias Fetched<Body> = (response: StoredResponse, body: Body, redirected: Bool)

    /// Sends `request` to the server and records when it was sent and answered.
    private func fetch<Bodies: ResponseBodies>(_ request: URLRequest, bodies: Bodies) async throws -> Fetched<
        Bodies.Body
    > {
        let requestTime = Date()
        let received = try await bodies.send(request, with: self)
        let stored = StoredResponse(
            url: (request.url ?? received.url).absoluteString, status: received.status,
            headers: received.headers, vary: nil, requestTime: requestTime, responseTime: Date())
        let redirected = received.url.absoluteString != request.url?.absoluteString
        return (stored, received.body, redirected)
    }

    private func answer<Body>(_ response: StoredResponse, _ body: Body, url: URL, outcome: HTTPCacheOutcome)
        -> Answer<Body>
    {
        let headers = outcome == .miss ? response.headers : response.servedHeaders(at: Date())
        return Answer(url: url, response: response, headers: headers, body: body, outcome: outcome)
    }
}
