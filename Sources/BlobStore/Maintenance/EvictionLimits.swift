/// The limits eviction keeps a store under (docs/design.md, "Eviction").
///
/// When a write takes the store over its capacity or entry limit, entries are evicted until it
/// is back under the limit times ``lowWater``: expired entries first, then entries idle longer
/// than ``maxAge``, then the ones ``policy`` chooses (S3-FIFO's, by default).
/// Evicting
/// below the limit (hysteresis) means one eviction round makes room for many writes, instead of
/// one round per write at the edge of the limit.
///
/// An app's limits are recorded in the store (the `limits` file), so `blobstore gc` with no
/// options applies the same ones.
public struct EvictionLimits: Sendable, Equatable {
    /// The most bytes the store's blobs may occupy on disk (as ``StoreStats/storedBytes`` counts
    /// them: loose blobs in whole 4 KiB blocks, packs whole while anything in them is live, plus
    /// unreferenced loose blobs not yet deleted). `nil`: no limit.
    public var capacity: UInt64?
    /// The most entries the store may hold. `nil`: no limit.
    public var maxEntries: Int?
    /// Entries not read or written for longer than this are evicted by the next eviction round
    /// or `gc`; a write runs a round for it when `maxAge / 8` has passed since the last one.
    /// At least one millisecond. `nil`: no limit.
    public var maxAge: Duration?
    /// The fraction of ``capacity`` and ``maxEntries`` an eviction round goes down to, in
    /// `0.5...1`. Default 0.9.
    public var lowWater: Double
    /// Which entries go when the store is over its capacity or entry limit. Default
    /// ``EvictionPolicy/s3fifo``: on the Zipf traces measured it missed 10-18 % less than LRU,
    /// the fewest of the three (docs/design.md, "Eviction policies").
    public var policy: EvictionPolicy

    public init(
        capacity: UInt64? = nil, maxEntries: Int? = nil, maxAge: Duration? = nil, lowWater: Double = 0.9,
        policy: EvictionPolicy = .s3fifo
    ) {
        self.capacity = capacity
        self.maxEntries = maxEntries
        self.maxAge = maxAge
        self.lowWater = lowWater
        self.policy = policy
    }

    /// `true` when no limit is set.
    public var isUnlimited: Bool { capacity == nil && maxEntries == nil && maxAge == nil }
}
