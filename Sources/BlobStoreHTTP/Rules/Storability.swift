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

    /// The status codes whose responses are stored: those that may be given a heuristic
    /// lifetime (``Freshness/heuristicallyCacheableStatuses`` but 206, since partial content is
    /// not combined), plus redirects stored only with explicit freshness.
    public static let cacheableStatuses: Set<Int> = Freshness.heuristicallyCacheableStatuses
        .subtracting([206])
        .union([302, 303, 307])

    /// Decides whether a response to `method` with `requestHeaders` may be stored.
    ///
    /// A response is stored when the method and status are cacheable, neither the request nor
    /// the response says `no-store`, a shared cache sees no `private` and no `Authorization`
    /// (unless `public`, `must-revalidate` or `s-maxage` allows it), `Vary` is not `*`, the
    /// status is heuristically cacheable or the response has explicit freshness, and the
    /// response can be used at all: it has a freshness lifetime, a `stale-while-revalidate`
    /// window or a validator (`ETag`, `Last-Modified`), and a validator when it says `no-cache`.
    ///
    /// - Parameters:
    ///   - method: The request method.
    ///   - requestHeaders: The request's header fields.
    ///   - status: The response's status code.
    ///   - responseHeaders: The response's header fields.
    ///   - freshness: The response's freshness lifetime (``Freshness/lifetime(status:headers:responseTime:policy:)``).
    ///   - policy: Shared or private, and the minimum disk lifetime.
    public static func decide(
        method: String, requestHeaders: HTTPHeaders, status: Int, responseHeaders: HTTPHeaders,
        freshness: Freshness, policy: HTTPCachePolicy
    ) -> Storability {
        let request = CacheControl(requestHeaders["Cache-Control"])
        let response = CacheControl(responseHeaders["Cache-Control"])
        guard cacheableMethods.contains(method.uppercased()) else { return .notStored("the method is \(method)") }
        guard cacheableStatuses.contains(status) else { return .notStored("the status \(status) is not cacheable") }
        if request.noStore { return .notStored("the request says no-store") }
        if response.noStore { return .notStored("the response says no-store") }
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
        guard freshness.lifetime > 0 || window > 0 || hasValidator else {
            return .notStored("the response is stale at once and has no validator")
        }
        guard !response.noCache || hasValidator else {
            return .notStored("the response says no-cache and has no validator")
        }
        return freshness.lifetime < policy.minimumDiskLifetime ? .memoryOnly : .memoryAndDisk
    }
}
