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
    /// store is over its capacity or entry limit, the least recently accessed entries (ties by
    /// key) until it is under the low-water mark of each. `protecting` (the entry a put just
    /// wrote) is never chosen: a value no larger than the capacity is never evicted by its own put.
    func evictionPlan(limits: EvictionLimits, now: Int64, protecting: StoreKey? = nil) -> EvictionPlan {
        var plan = EvictionPlan()
        var stored = storedBytes
        var remaining = count
        var released: [SHA256Digest: Int] = [:]
        func evict(_ key: StoreKey, _ entry: IndexEntry, _ reason: EvictionReason) {
            plan.victims.append(.init(key: key, digest: entry.digest, size: entry.size, reason: reason))
            remaining -= 1
            released[entry.digest, default: 0] += 1
            // A packed blob's needle is given back when its pack is repacked or deleted, which
            // the round does after evicting (BlobStore.reclaimPacks).
            if let reference = blob(entry.digest), released[entry.digest] == reference.referenceCount {
                stored &-= reference.allocatedBytes
            }
        }
        let idleSince = limits.maxAge.map { now &- Int64(clamping: $0.clampedNanoseconds / 1_000_000) }
        // Least-recently-used candidates are only needed when the store is over a limit.
        let isOver = isOverLimits(limits)
        var candidates: [(lastAccess: Int64, key: StoreKey, entry: IndexEntry)] = []
        if isOver { candidates.reserveCapacity(count) }
        forEachEntry { key, entry in
            guard key != protecting else { return }
            if entry.isExpired(at: now) {
                evict(key, entry, .expired)
            } else if let idleSince, entry.lastAccess < idleSince {
                evict(key, entry, .aged)
            } else if isOver {
                candidates.append((entry.lastAccess, key, entry))
            }
        }
        guard isOver else { return plan }
        let byteTarget = limits.capacity.map { Self.lowWaterMark($0, limits.lowWater) }
        let countTarget = limits.maxEntries.map { Int(Self.lowWaterMark(UInt64($0), limits.lowWater)) }
        func isUnderTargets() -> Bool {
            (byteTarget.map { stored <= $0 } ?? true) && (countTarget.map { remaining <= $0 } ?? true)
        }
        guard !isUnderTargets() else { return plan }
        // The older access first, the smaller key on a tie.
        candidates.sort { ($0.lastAccess, $0.key) < ($1.lastAccess, $1.key) }
        for candidate in candidates {
            evict(candidate.key, candidate.entry, .leastRecentlyUsed)
            if isUnderTargets() { break }
        }
        return plan
    }

    /// `limit × fraction`, rounded down, never above `limit`: near `UInt64.max` a `Double`
    /// product rounds up past what an integer holds.
    static func lowWaterMark(_ limit: UInt64, _ fraction: Double) -> UInt64 {
        let product = Double(limit) * fraction
        guard product < 18_446_744_073_709_551_615.0 else { return limit }
        return min(limit, UInt64(max(0, product)))
    }
}
