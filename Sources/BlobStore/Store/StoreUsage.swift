/// How a store has been used by every process that could write it, counted in its LOCK file
/// (docs/format.md, "LOCK"): the counts persist across processes and runs, so hit ratios are the
/// store's, not one process's.
///
/// Counted by processes that may write the store (a read-only opener's reads are not); the
/// counts are statistics, not durable state: a power loss may lose the last ones.
public struct StoreUsage: Sendable, Equatable, Codable {
    /// Reads answered with a value.
    public var hits: UInt64
    /// Reads answered with nothing (a damaged value included).
    public var misses: UInt64
    /// Entries removed by eviction rounds: expired, idle past the maximum age, or least recently
    /// used over a limit.
    public var evictions: UInt64

    /// Counts of `hits`, `misses` and `evictions`.
    public init(hits: UInt64 = 0, misses: UInt64 = 0, evictions: UInt64 = 0) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
    }

    /// Hits over all reads, or `nil` before the first read.
    public var hitRatio: Double? {
        let reads = hits &+ misses
        return reads == 0 ? nil : Double(hits) / Double(reads)
    }
}
