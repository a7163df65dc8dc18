/// How the HTTP cache answered a request.
public enum HTTPCacheOutcome: String, Sendable, Equatable, CustomStringConvertible {
    /// A fresh stored response answered; no request was sent.
    case freshHit = "fresh hit"
    /// A stale stored response was revalidated with a conditional request; the server
    /// answered `304 Not Modified` and the stored body answered.
    case revalidatedHit = "revalidated hit"
    /// A stale stored response answered: within its `stale-while-revalidate` window (it is
    /// being revalidated in the background), or accepted by the request's `max-stale`.
    case staleHit = "stale hit"
    /// The server's full response answered (nothing usable was stored, or the revalidation
    /// brought a new response).
    case miss = "miss"

    /// `fresh hit`, `revalidated hit`, `stale hit` or `miss`.
    public var description: String { rawValue }
}
