extension BlobStore {
    /// What one eviction round did: whom it evicted, the loose blobs it deleted, and the packs it
    /// rewrote to give back the evicted needles' space (``reclaimPacks(_:capacity:)``).
    struct EvictionRound: Sendable {
        var plan: EvictionPlan
        var deleted: (count: Int, bytes: UInt64)
        var repacked = RepackOutcome()
    }
}
