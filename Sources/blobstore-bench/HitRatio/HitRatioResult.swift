import Foundation

/// One replay's outcome: a trace at one cache size under one policy, through one engine. Its
/// JSON line is the one `scripts/hit-ratio-oracle.py --compare` reads.
struct HitRatioResult: Encodable {
    var trace: String
    var policy: String
    var fraction: Double
    var cacheBytes: UInt64
    var requests: Int
    var missRatio: Double
    var byteMissRatio: Double
    /// `model` (the policy's queue on its own, as libCacheSim runs a cache) or `store` (a
    /// BlobStore with the policy and the capacity).
    var engine: String
    var seconds: Double
    /// The store's low-water mark (`store` only).
    var lowWater: Double?

    enum CodingKeys: String, CodingKey {
        case trace, policy, fraction, requests, engine, seconds
        case cacheBytes = "cache_bytes"
        case missRatio = "miss_ratio"
        case byteMissRatio = "byte_miss_ratio"
        case lowWater = "low_water"
    }

    var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
}

/// Hits among the requests, and their bytes.
struct HitCount {
    var requests = 0
    var hits = 0
    var bytes: UInt64 = 0
    var hitBytes: UInt64 = 0

    mutating func count(size: UInt32, hit: Bool) {
        requests += 1
        bytes += UInt64(size)
        if hit {
            hits += 1
            hitBytes += UInt64(size)
        }
    }

    var missRatio: Double { requests == 0 ? 0 : 1 - Double(hits) / Double(requests) }
    var byteMissRatio: Double { bytes == 0 ? 0 : 1 - Double(hitBytes) / Double(bytes) }
}
