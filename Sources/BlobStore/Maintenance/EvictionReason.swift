/// Why an eviction round removed an entry (docs/design.md, "Eviction").
public enum EvictionReason: Sendable, Hashable, Codable {
    /// Its expiry date had passed.
    case expired
    /// It was idle longer than ``EvictionLimits/maxAge``.
    case aged
    /// The store was over its capacity or entry limit, and it was among the least recently
    /// accessed (``EvictionPolicy/lru``).
    case leastRecentlyUsed
    /// The store was over its capacity or entry limit, and SIEVE's hand found it not read since
    /// it last passed (``EvictionPolicy/sieve``).
    case sieve
    /// The store was over its capacity or entry limit, and S3-FIFO evicted it from its small or
    /// its main queue (``EvictionPolicy/s3fifo``).
    case s3fifo
}
