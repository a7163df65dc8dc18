/// How a stored response may answer a request (``StoredResponse/use(at:requestHeaders:policy:)``).
public enum ResponseUse: Sendable, Equatable {
    /// It is fresh: serve it without contacting the server.
    case fresh
    /// It is stale, and the request's `max-stale` accepts it: serve it as it is.
    case staleAccepted
    /// It is stale within its `stale-while-revalidate` window: serve it, revalidate meanwhile.
    case staleWhileRevalidate
    /// It is stale (or `no-cache`) and has a validator: send a conditional request.
    case revalidate
    /// It cannot be used: fetch anew.
    case unusable
}
