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
        guard let url = request.url else {
            throw BlobStoreError(.invalidArgument, "The request has no URL. Give it the URL to fetch.")
        }
        let method = (request.httpMethod ?? "GET").uppercased()
        let requestHeaders = HTTPHeaders(request.allHTTPHeaderFields ?? [:])
        let conditional = requestHeaders.contains("If-None-Match") || requestHeaders.contains("If-Modified-Since")
        guard Storability.cacheableMethods.contains(method), !conditional else {
            let fetched = try await fetch(request)
            if !["GET", "HEAD", "OPTIONS", "TRACE"].contains(method), (200..<400).contains(fetched.response.status) {
                try await offload { try self.invalidate(url) }
            }
            return result(fetched.response, fetched.body, url: url, outcome: .miss)
        }
        let found = try await offload { try self.storedResponse(for: url, requestHeaders: requestHeaders) }
        guard let (stored, body) = found else {
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders)
        }
        switch stored.use(at: Date(), requestHeaders: requestHeaders, policy: policy) {
        case .fresh:
            return result(stored, body, url: url, outcome: .freshHit)
        case .staleAccepted:
            return result(stored, body, url: url, outcome: .staleHit)
        case .staleWhileRevalidate:
            let key = Self.entryKey(for: stored, url: url)
            if revalidating.withLock({ $0.insert(key).inserted }) {
                Task { [self] in
                    defer { revalidating.withLock { _ = $0.remove(key) } }
                    _ = try? await revalidate(
                        stored, body: body, request: request, url: url, requestHeaders: requestHeaders)
                }
            }
            return result(stored, body, url: url, outcome: .staleHit)
        case .revalidate:
            return try await revalidate(stored, body: body, request: request, url: url, requestHeaders: requestHeaders)
        case .unusable:
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders)
        }
    }

    // MARK: - Internals

    /// Sends a conditional request for `stored`; a 304 refreshes it, anything else replaces it.
    private func revalidate(
        _ stored: StoredResponse, body: Data, request: URLRequest, url: URL, requestHeaders: HTTPHeaders
    ) async throws -> HTTPCacheResult {
        var conditional = request
        if let etag = stored.headers["ETag"] { conditional.setValue(etag, forHTTPHeaderField: "If-None-Match") }
        if let lastModified = stored.headers["Last-Modified"] {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        let fetched = try await fetch(conditional)
        guard fetched.response.status == 304 else {
            try await storeIfSameURL(fetched, requestHeaders: requestHeaders)
            return result(fetched.response, fetched.body, url: url, outcome: .miss)
        }
        guard stored.isValidated(by: fetched.response.headers) else {
            // The 304 is about another representation (RFC 9111 §4.3.4): the stored one is wrong.
            try await offload { try self.removeStored(stored, url: url) }
            return try await fetchAndStore(request, url: url, requestHeaders: requestHeaders)
        }
        var refreshed = stored
        refreshed.headers = stored.updatingHeaders(
            with: fetched.response.headers, receivedAt: fetched.response.responseTime)
        refreshed.requestTime = fetched.response.requestTime
        refreshed.responseTime = fetched.response.responseTime
        let record = refreshed
        try await offload {
            if case .notStored = try self.refresh(record, body: body, requestHeaders: requestHeaders) {
                try self.removeStored(record, url: url)
            }
        }
        return result(refreshed, body, url: url, outcome: .revalidatedHit)
    }

    private func fetchAndStore(_ request: URLRequest, url: URL, requestHeaders: HTTPHeaders) async throws
        -> HTTPCacheResult
    {
        let fetched = try await fetch(request)
        try await storeIfSameURL(fetched, requestHeaders: requestHeaders)
        return result(fetched.response, fetched.body, url: url, outcome: .miss)
    }

    /// Stores a fetched response unless the session followed a redirect to get it: the final
    /// response belongs to another URL and says nothing about how long the redirect holds.
    private func storeIfSameURL(_ fetched: Fetched, requestHeaders: HTTPHeaders) async throws {
        guard !fetched.redirected else { return }
        _ = try await offload { try self.store(fetched.response, body: fetched.body, requestHeaders: requestHeaders) }
    }

    /// A response from the server; `redirected` when its URL is not the request's.
    private typealias Fetched = (response: StoredResponse, body: Data, redirected: Bool)

    /// Sends `request` to the server and records when it was sent and answered.
    private func fetch(_ request: URLRequest) async throws -> Fetched {
        let requestTime = Date()
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw BlobStoreError(
                .network,
                "The request to \(request.url?.absoluteString ?? "?") failed: \(error.localizedDescription). "
                    + "Check the URL and the network, then retry.")
        }
        guard let http = response as? HTTPURLResponse else {
            throw BlobStoreError(
                .network,
                "\(request.url?.absoluteString ?? "?") did not answer with an HTTP response. Use an http(s) URL.")
        }
        var headers = HTTPHeaders(http.allHeaderFields)
        if (request.httpMethod ?? "GET").uppercased() != "HEAD", http.statusCode != 304,
            Self.wasDecoded(headers: headers, bodyCount: data.count)
        {
            // The headers must describe the body kept and served: the decoded one.
            headers.set("Content-Encoding", nil)
            headers.set("Content-Length", String(data.count))
        }
        let stored = StoredResponse(
            url: (request.url ?? http.url)?.absoluteString ?? "", status: http.statusCode,
            headers: headers, vary: nil, requestTime: requestTime, responseTime: Date())
        let redirected = http.url.map { $0.absoluteString != request.url?.absoluteString } ?? false
        return (stored, data, redirected)
    }

    /// Whether `URLSession` decoded a body whose response has `headers`: it has a
    /// `Content-Encoding` other than `identity`, and its `Content-Length` is not the body's size
    /// or its codings are ones `URLSession` always decodes (`gzip`, `x-gzip`, `deflate`).
    static func wasDecoded(headers: HTTPHeaders, bodyCount: Int) -> Bool {
        let codings = headers.list("Content-Encoding").map { $0.lowercased() }.filter { $0 != "identity" }
        guard !codings.isEmpty else { return false }
        if let length = headers["Content-Length"].flatMap(Int.init), length != bodyCount { return true }
        return codings.allSatisfy { ["gzip", "x-gzip", "deflate"].contains($0) }
    }

    private func result(_ response: StoredResponse, _ body: Data, url: URL, outcome: HTTPCacheOutcome)
        -> HTTPCacheResult
    {
        let headers = outcome == .miss ? response.headers : response.servedHeaders(at: Date())
        return HTTPCacheResult(url: url, status: response.status, headers: headers, body: body, outcome: outcome)
    }
}
