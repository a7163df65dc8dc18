import Foundation

/// The choices that RFC 9111 leaves to a cache, and where responses are kept.
public struct HTTPCachePolicy: Sendable, Equatable {
    /// Whether this is a shared cache (serving several users): then `s-maxage` applies,
    /// `private` responses are not stored, and responses to requests with `Authorization` are
    /// stored only when `public`, `must-revalidate` or `s-maxage` allows it. Default `false`: a
    /// cache in one user's app or tool is private.
    public var isShared = false
    /// Responses whose freshness lifetime is shorter than this are kept in memory only, never
    /// written to disk (as SDURLCache's `minCacheInterval`). Default 5 minutes. Without a memory
    /// tier, they are not kept at all.
    public var minimumDiskLifetime: TimeInterval = 300
    /// The fraction of the time since `Last-Modified` that a response without explicit
    /// freshness stays fresh (RFC 9111 §4.2.2). Default 0.1.
    public var heuristicFraction = 0.1
    /// The longest heuristic freshness lifetime. Default one day.
    public var maximumHeuristicLifetime: TimeInterval = 86_400
    /// How long past its freshness and its `stale-while-revalidate` and `stale-if-error` windows a
    /// response without a validator is kept, for requests whose `max-stale` accepts it. Default 0:
    /// it is dropped once nothing can use it without `max-stale`. (A response with a validator is
    /// kept until evicted: it can always be revalidated.)
    public var staleRetention: TimeInterval = 0
    /// Whether a stale response within its `stale-while-revalidate` window is served at once
    /// while it is revalidated in the background. Default `true`; a short-lived process (a
    /// command-line tool) turns it off to revalidate before it answers.
    public var servesStaleWhileRevalidating = true

    /// A targeted cache-control field (RFC 9213) that, when a response has it, replaces its
    /// `Cache-Control` for this cache: `CDN-Cache-Control` for a proxy acting as a CDN. Default
    /// `nil`: `Cache-Control` only.
    public var targetedField: String?

    /// The default policy: a private cache, 5 minutes minimum disk lifetime.
    public init() {}

    /// The cache directives of a response with `headers` for this cache: those of the
    /// ``targetedField`` when the response has a valid one (RFC 9213 §2.1: a Structured Fields
    /// dictionary, ``CacheControl/init(targeted:)``), else its `Cache-Control`.
    public func responseDirectives(_ headers: HTTPHeaders) -> CacheControl {
        responseDirectives(headers, CacheControl(headers["Cache-Control"]))
    }

    /// ``responseDirectives(_:)`` with the response's `Cache-Control` parsed before.
    func responseDirectives(_ headers: HTTPHeaders, _ cacheControl: CacheControl) -> CacheControl {
        if let targetedField, let value = headers[targetedField], let control = CacheControl(targeted: value) {
            return control
        }
        return cacheControl
    }
}
