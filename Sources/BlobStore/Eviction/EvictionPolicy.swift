/// How the store chooses what to evict when it is over its capacity or entry limit
/// (``EvictionLimits/policy``; docs/design.md, "Eviction policies"). Expired entries and entries
/// idle longer than ``EvictionLimits/maxAge`` go first under every policy.
///
/// - ``lru``: least recently used first, the store's only policy before these.
/// - ``sieve``: SIEVE (Zhang et al., NSDI 2024): one FIFO queue, a visited bit set by a hit and a
///   hand that moves from the oldest entry toward the newest, clearing visited bits and evicting
///   the first entry without one. A hit changes one bit and moves nothing.
/// - ``s3fifo``: S3-FIFO (Yang et al., SOSP 2023): a small FIFO queue for new entries (a tenth of
///   the capacity), a main FIFO queue, and a ghost queue of keys recently evicted from the small
///   one. An entry read twice in the small queue moves to the main one; an entry evicted from the
///   small queue and then asked for again goes straight to the main one. One-hit wonders leave
///   from the small queue without disturbing the main one.
public enum EvictionPolicy: String, Sendable, Hashable, CaseIterable, Codable {
    /// S3-FIFO: a small probationary FIFO queue, a main FIFO queue and a ghost queue. The default.
    case s3fifo
    /// SIEVE: a FIFO queue whose hand spares the entries read since it last passed them.
    case sieve
    /// Least recently used first.
    case lru
}
