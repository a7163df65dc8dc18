import Glibc

// MARK: - Eviction rounds and automatic compaction, after a write

extension BlobStore {
    /// After a write, with the exclusive lock held: runs an eviction round if the store is over
    /// a limit (or an idle-age check is due) and reclaims dead needles once enough have
    /// gathered. (A compaction, if the journal is big and mostly dead, follows once the write's
    /// body has let the state mutex go: ``compactIfWanted()``.) The write is already appended, so
    /// a failure here is not the write's: it is left for the next write to retry (a failed sync
    /// still poisons the handle).
    func maintainAfterWrite(_ state: inout StoreState, protecting key: StoreKey?) {
        let now = Syscalls.nowMilliseconds()
        let limits = state.limits
        let ageCheckDue = limits.maxAge != nil && now >= state.nextAgeCheck
        if state.index.isOverLimits(limits) || ageCheckDue {
            _ = try? evictionRound(&state, limits: limits, now: now, protecting: key)
        }
        if state.poison == nil, state.index.deadPackBytes >= state.nextRepackCheck {
            _ = try? reclaimPacks(&state, capacity: nil)
            // Packs that stay above the live fraction are looked at again after as many more dead bytes.
            state.nextRepackCheck = state.index.deadPackBytes &+ StoreState.repackCheckInterval
        }
    }

    /// Evicts what `limits` call for (``StoreIndex/evictionPlan(limits:now:protecting:)``), makes
    /// the evict records durable, and only then deletes every blob no entry refers to any more.
    /// With the exclusive lock held, after catching up.
    func evictionRound(
        _ state: inout StoreState, limits: EvictionLimits, now: Int64, protecting key: StoreKey? = nil
    ) throws -> (plan: EvictionPlan, deleted: (count: Int, bytes: UInt64)) {
        let plan = state.index.evictionPlan(limits: limits, now: now, protecting: key)
        if let maxAge = limits.maxAge {
            let milliseconds = Int64(clamping: maxAge.clampedNanoseconds / 1_000_000)
            state.nextAgeCheck = now &+ max(10, milliseconds / 8)
        }
        if !plan.victims.isEmpty {
            try state.append(plan.victims.map { .evict(key: $0.key, digest: $0.digest) })
            usage?.add(.evictions, plan.victims.count)
            observers.publish(plan.victims.map { .evicted($0.key, $0.reason) })
        }
        if configuration.durability != .none, !state.index.garbage.isEmpty || !state.index.deadPacks.isEmpty {
            // Blobs, then the journal (with what other processes appended: their removes and
            // overwrites made some of this garbage), so that after a power loss no record
            // refers to a deleted blob.
            state.unsynced.journal = true
            try groupCommitLocked(&state)
        }
        let deleted = state.deleteGarbage(layout: layout)
        if !plan.victims.isEmpty || state.index.isOverLimits(limits) {
            try reclaimPacks(&state, capacity: limits.capacity)
        }
        return (plan, deleted)
    }

    /// Refuses a value larger than the capacity. `size` is the value's size, or with
    /// `soFar` what a stream has delivered before it was cut off.
    func checkCapacity(_ size: UInt64, soFar: Bool = false) throws {
        guard let capacity = state.withLock({ $0.limits.capacity }), size > capacity else { return }
        throw BlobStoreError(
            .tooLarge,
            "The value is \(soFar ? "at least " : "")\(size) bytes, more than the store's capacity of \(capacity) bytes; it is not stored. "
                + "Raise the capacity (blobstore config --capacity), or store it elsewhere.", path: path)
    }
}
