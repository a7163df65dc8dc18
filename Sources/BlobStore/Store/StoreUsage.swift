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
    /// Entries removed by eviction rounds: expired, idle past the maximum age, or chosen by the
    /// eviction policy over a limit.
    public var evictions: UInt64
    /// Of ``evictions``, the entries that had expired. (Versions before these counts evict
    /// without adding to them.)
    public var expiredEvictions: UInt64
    /// Of ``evictions``, the entries idle longer than the maximum age.
    public var agedEvictions: UInt64

    /// Counts of `hits`, `misses` and `evictions`, and of the evictions by reason.
    public init(
        hits: UInt64 = 0, misses: UInt64 = 0, evictions: UInt64 = 0, expiredEvictions: UInt64 = 0,
        agedEvictions: UInt64 = 0
    ) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.expiredEvictions = expiredEvictions
        self.agedEvictions = agedEvictions
    }

    private enum CodingKeys: String, CodingKey {
        case hits, misses, evictions, expiredEvictions, agedEvictions
    }

    /// Decodes the counts; the evictions by reason are 0 when absent (JSON written before them).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        hits = try container.decode(UInt64.self, forKey: .hits)
        misses = try container.decode(UInt64.self, forKey: .misses)
        evictions = try container.decode(UInt64.self, forKey: .evictions)
        expiredEvictions = try container.decodeIfPresent(UInt64.self, forKey: .expiredEvictions) ?? 0
        agedEvictions = try container.decodeIfPresent(UInt64.self, forKey: .agedEvictions) ?? 0
    }

    /// Of ``evictions``, the entries the eviction policy chose to get under a limit.
    public var chosenByPolicy: UInt64 {
        evictions >= expiredEvictions &+ agedEvictions ? evictions - expiredEvictions - agedEvictions : 0
    }

    /// Hits over all reads, or `nil` before the first read.
    public var hitRatio: Double? {
        let reads = hits &+ misses
        return reads == 0 ? nil : Double(hits) / Double(reads)
    }
}
