/// Why an eviction round removed an entry (docs/design.md, "Eviction").
public enum EvictionReason: Sendable, Hashable, Codable {
    /// Its expiry date had passed.
    case expired
    /// It was idle longer than ``EvictionLimits/maxAge``.
    case aged
    /// The store was over its capacity or entry limit, and it was among the least recently
    /// accessed.
    case leastRecentlyUsed
}
