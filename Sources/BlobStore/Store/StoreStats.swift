/// Counts and sizes of a store, as this process sees it after catching up with the journal.
public struct StoreStats: Sendable, Equatable, Codable {
    /// Live keys (expired ones included until they are evicted).
    public var entries: Int
    /// Distinct blobs referenced by live keys.
    public var distinctBlobs: Int
    /// Sum of the sizes of all values, as if each key had its own copy.
    public var logicalBytes: UInt64
    /// The disk the distinct referenced blobs occupy: loose blobs in whole 4 KiB blocks, and every
    /// pack that holds a live needle, whole (its dead needles included, until a repack). What
    /// ``EvictionLimits/capacity`` limits (docs/design.md, "Disk use").
    public var storedBytes: UInt64
    /// Bytes of the current journal this process has read (its size, unless another process
    /// is appending at this moment).
    public var journalBytes: UInt64
    /// Size of the current generation's manifest (0 before the first compaction).
    public var manifestBytes: UInt64
    /// The current generation (the journal's number).
    public var generation: UInt64
    /// Reads answered with a value by this process since it opened the store.
    public var hits: Int
    /// Reads answered with nothing by this process since it opened the store.
    public var misses: Int
    /// Entries dropped by this process because their blob was missing or damaged.
    public var repairs: Int
    /// Reads by this process that found their blob missing or damaged (each also a miss). Unlike
    /// ``repairs``, also counted in a read-only store, where nothing can be dropped.
    public var damagedReads: Int
    /// Hits, misses and evictions of every process that could write the store, since the store
    /// was made (``StoreUsage``); `nil` when its LOCK page cannot be mapped.
    public var allProcesses: StoreUsage?
}
