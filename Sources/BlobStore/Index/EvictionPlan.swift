/// The entries one eviction round removes, in order, and why (docs/design.md, "Eviction").
struct EvictionPlan: Sendable {
    /// One entry to evict.
    struct Victim: Equatable, Sendable {
        var key: StoreKey
        var digest: SHA256Digest
        var size: UInt64
        var reason: EvictionReason
    }

    var victims: [Victim] = []

    func count(_ reason: EvictionReason) -> Int { victims.reduce(0) { $0 + ($1.reason == reason ? 1 : 0) } }
    var evictedBytes: UInt64 { victims.reduce(0) { $0 &+ $1.size } }
}

extension StoreIndex {
    /// Whether the store is over a limit: a write that leaves it so starts an eviction round.
    /// Unreferenced blobs not yet deleted count against the capacity: they are still on disk.
    func isOverLimits(_ limits: EvictionLimits) -> Bool {
        if let capacity = limits.capacity, storedBytes &+ garbageBytes > capacity { return true }
        if let maxEntries = limits.maxEntries, count > maxEntries { return true }
        return false
    }

    /// Plans a round: every expired entry, every entry idle longer than `maxAge`, then, if the
    /// store is over its capacity or entry limit, the entries the policy chooses until it is under
    /// the low-water mark of each: the least recently accessed (ties by key) for LRU, the queue's
    /// victims for SIEVE and S3-FIFO (``policy``, which the plan takes them out of, and the
    /// expired and aged entries too). `protecting` (the entry a put just wrote) is never chosen:
    /// a value no larger than the capacity is never evicted by its own put.
    mutating func evictionPlan(limits: EvictionLimits, now: Int64, protecting: StoreKey? = nil) -> EvictionPlan {
        var planner = Planner(index: self, limits: limits)
        let idleSince = limits.maxAge.map { now &- Int64(clamping: $0.clampedNanoseconds / 1_000_000) }
        // Least-recently-used candidates are only needed when the store is over a limit.
        let isOver = isOverLimits(limits)
        let usesQueue = policy != nil
        var candidates: [(lastAccess: Int64, key: StoreKey, entry: IndexEntry)] = []
        if isOver && !usesQueue { candidates.reserveCapacity(count) }
        forEachEntry { key, entry in
            guard key != protecting else { return }
            if entry.isExpired(at: now) {
                planner.evict(key, entry, .expired, blob: blob(entry.digest), index: self)
            } else if let idleSince, entry.lastAccess < idleSince {
                planner.evict(key, entry, .aged, blob: blob(entry.digest), index: self)
            } else if isOver && !usesQueue {
                candidates.append((entry.lastAccess, key, entry))
            }
        }
        if usesQueue {
            for victim in planner.plan.victims { policy!.remove(victim.key) }
        }
        guard isOver, !planner.isUnderTargets else { return planner.plan }
        if usesQueue {
            while !planner.isUnderTargets, let key = policy!.nextVictim(sparing: protecting) {
                guard let entry = self[key] else { continue }
                planner.evict(key, entry, policy!.reason, blob: blob(entry.digest), index: self)
            }
            guard !planner.isUnderTargets else { return planner.plan }
            // The queue ran dry with the store still over: it does not hold every entry (it
            // cannot, unless this process's copy went wrong). It is rebuilt at the next round,
            // and this one goes on by LRU over what is left.
            if policy!.count + planner.plan.victims.count < count { policy = nil }
            let chosen = Set(planner.plan.victims.map(\.key))
            forEachEntry { key, entry in
                guard key != protecting, !chosen.contains(key) else { return }
                candidates.append((entry.lastAccess, key, entry))
            }
        }
        // The older access first, the smaller key on a tie.
        candidates.sort { ($0.lastAccess, $0.key) < ($1.lastAccess, $1.key) }
        for candidate in candidates {
            planner.evict(
                candidate.key, candidate.entry, .leastRecentlyUsed, blob: blob(candidate.entry.digest), index: self)
            if planner.isUnderTargets { break }
        }
        return planner.plan
    }

    /// A plan being made: the victims so far, and what the store will hold without them.
    /// (It holds no copy of the index: the plan changes the index's queue as it goes.)
    private struct Planner {
        var plan = EvictionPlan()
        var stored: UInt64
        var remaining: Int
        var released: [SHA256Digest: Int] = [:]
        let byteTarget: UInt64?
        let countTarget: Int?

        init(index: StoreIndex, limits: EvictionLimits) {
            stored = index.storedBytes
            remaining = index.count
            byteTarget = limits.capacity.map { StoreIndex.lowWaterMark($0, limits.lowWater) }
            countTarget = limits.maxEntries.map { Int(StoreIndex.lowWaterMark(UInt64($0), limits.lowWater)) }
        }

        var isUnderTargets: Bool {
            (byteTarget.map { stored <= $0 } ?? true) && (countTarget.map { remaining <= $0 } ?? true)
        }

        /// Adds `key`'s entry, whose blob is `reference`, to the victims.
        mutating func evict(
            _ key: StoreKey, _ entry: IndexEntry, _ reason: EvictionReason, blob reference: BlobReference?,
            index: StoreIndex
        ) {
            plan.victims.append(.init(key: key, digest: entry.digest, size: entry.size, reason: reason))
            remaining -= 1
            release(entry.digest, reference, index: index)
        }

        /// Counts one reference to `digest` gone; its last takes the blob's disk off, and a
        /// chunked value's last releases its chunks, each freed once nothing else names it. A
        /// packed blob's needle is given back when its pack is repacked or deleted, which the
        /// round does after evicting (BlobStore.reclaimPacks).
        private mutating func release(
            _ digest: SHA256Digest, _ reference: BlobReference?, index: StoreIndex, asChunk: Bool = false
        ) {
            released[digest, default: 0] += 1
            guard let reference, released[digest] == reference.referenceCount else { return }
            stored &-= reference.allocatedBytes
            // Not for a chunk: one is chunked only in a damaged store (StoreIndex.releaseBlob).
            guard reference.location == .chunked, !asChunk, let recipe = index.recipe(digest) else { return }
            for chunk in recipe.chunks { release(chunk.digest, index.blob(chunk.digest), index: index, asChunk: true) }
        }
    }

    /// `limit × fraction`, rounded down, never above `limit`: near `UInt64.max` a `Double`
    /// product rounds up past what an integer holds.
    static func lowWaterMark(_ limit: UInt64, _ fraction: Double) -> UInt64 {
        let product = Double(limit) * fraction
        guard product < 18_446_744_073_709_551_615.0 else { return limit }
        return min(limit, UInt64(max(0, product)))
    }
}
