import Foundation

/// Whether a response may be stored (RFC 9111 §3, §3.5) and, when it may, where.
public enum Storability: Sendable, Equatable {
    /// Store it on disk (and in memory when it fits).
    case memoryAndDisk
    /// Store it in memory only: its freshness lifetime is below
    /// ``HTTPCachePolicy/minimumDiskLifetime``.
    case memoryOnly
    /// Do not store it, for the reason given (shown by tools and tests).
    case notStored(String)

    /// The methods whose responses are stored. `HEAD` responses carry no body and are passed
    /// through.
    public static let cacheableMethods: Set<String> = ["GET"]

    /// The status codes whose caching rules the cache knows (those RFC 9110 §15 defines but
    /// 206, since partial content is not combined, and 304, which updates rather than replaces):
    /// a response with `must-understand` is stored only with one of them, and then its `no-store`
    /// is ignored (RFC 9111 §5.2.2.3).
    public static let understoodStatuses: Set<Int> = Set(200...205).union(300...308).subtracting([304, 306])
        .union(400...417).union(421...426).union(428...429).union([431, 451]).union(500...505).union([511])

    /// Decides whether a response to `method` with `requestHeaders` may be stored.
    ///
    /// A response is stored when (RFC 9111 §3) the method is cacheable and the status final (not
    /// 206 or 304); neither the request nor the response says `no-store` (a response's is ignored
    /// with `must-understand` and an ``understoodStatuses`` status; `must-understand` with another
    /// status is not stored); a shared cache sees no `private` and no `Authorization` (unless
    /// `public`, `must-revalidate` or `s-maxage` allows it); `Vary` is not `*`; the status is
    /// heuristically cacheable or the response has explicit freshness (`max-age`, `Expires`,
    /// `public`, `s-maxage` in a shared cache, `private` in a private one); and the response can be
    /// used at all: it has a freshness lifetime, a `stale-while-revalidate` window or a validator
    /// (`ETag`, `Last-Modified`), and a validator when it says `no-cache`.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - requestHeaders: The request's header fields.
    ///   - status: The response's status code.
    ///   - responseHeaders: The response's header fields.
    ///   - freshness: The response's freshness lifetime (``Freshness/lifetime(status:headers:responseTime:policy:)``),
    ///     evaluated only when the other rules leave the decision to it.
    ///   - policy: Shared or private, and the minimum disk lifetime.
    public static func decide(
        method: String, requestHeaders: HTTPHeaders, status: Int, responseHeaders: HTTPHeaders,
        freshness: @autoclosure () -> Freshness, policy: HTTPCachePolicy
    ) -> Storability {
        let request = CacheControl(requestHeaders["Cache-Control"])
        let response = policy.responseDirectives(responseHeaders)
        // `GET` as sent answers without a copy uppercased and a set's hash.
        guard method == "GET" || cacheableMethods.contains(method.uppercased()) else {
            return .notStored("the method is \(method)")
        }
        guard status >= 200, status != 206, status != 304 else {
            return .notStored("the status \(status) is not cacheable")
        }
        if request.noStore { return .notStored("the request says no-store") }
        if response.mustUnderstand, !understoodStatuses.contains(status) {
            return .notStored("the response says must-understand and its status \(status) is not understood")
        }
        if response.noStore, !response.mustUnderstand { return .notStored("the response says no-store") }
        if policy.isShared {
            if response.isPrivate { return .notStored("the response is private and this cache is shared") }
            if requestHeaders.contains("Authorization"),
                !(response.isPublic || response.mustRevalidate || response.sharedMaxAge != nil)
            {
                return .notStored("the request has Authorization and the response does not allow a shared cache")
            }
        }
        if responseHeaders.list("Vary").contains("*") { return .notStored("the response varies on *") }
        let explicit =
            response.maxAge != nil || responseHeaders.contains("Expires") || response.isPublic
            || (policy.isShared && response.sharedMaxAge != nil) || (!policy.isShared && response.isPrivate)
        guard explicit || Freshness.heuristicallyCacheableStatuses.contains(status) else {
            return .notStored("the status \(status) needs explicit freshness")
        }
        let hasValidator = responseHeaders.hasValidator
        let window = TimeInterval(response.staleWhileRevalidate ?? 0)
        let lifetime = freshness().lifetime
        guard lifetime > 0 || window > 0 || hasValidator else {
            return .notStored("the response is stale at once and has no validator")
        }
        guard !response.noCache || hasValidator else {
            return .notStored("the response says no-cache and has no validator")
        }
        return lifetime < policy.minimumDiskLifetime ? .memoryOnly : .memoryAndDisk
    }
}
