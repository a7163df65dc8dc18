import Glibc

// MARK: - Eviction rounds and automatic compaction, after a write

extension BlobStore {
    /// Asks for the maintenance a write calls for, from inside its body (state mutex held):
    /// ``maintainInSteps()`` runs it once the body has let the mutex go. `key` (the entry a put
    /// just wrote) is never evicted by it.
    func maintainAfterWrite(_ state: inout StoreState, protecting key: StoreKey?) {
        state.maintenanceDue = StoreState.MaintenanceRequest(protecting: key)
    }

    /// After a write's body, holding ``writers`` and the exclusive lock, with the state mutex
    /// let go: runs an eviction round if the store is over a limit (or an idle-age check is due),
    /// reclaims dead needles once enough have gathered, then compacts if the journal is big and
    /// mostly dead. The round's group commit and the compaction's writing and syncing run with
    /// the mutex let go (``evictionRoundInSteps(limits:now:protecting:)``,
    /// ``compactInSteps()``), so readers of this process do not wait for them. The write is
    /// appended already, so a failure here is not the write's: it is left for the next write to
    /// retry (a failed sync still poisons the handle).
    func maintainInSteps() {
        let request = state.withLock { state -> (StoreState.MaintenanceRequest, EvictionLimits, Bool)? in
            guard let request = state.maintenanceDue else { return nil }
            state.maintenanceDue = nil
            guard state.poison == nil, !state.isClosed, state.readOnly == nil else { return nil }
            let now = Syscalls.nowMilliseconds()
            let limits = state.limits
            let ageCheckDue = limits.maxAge != nil && now >= state.nextAgeCheck
            return (request, limits, state.index.isOverLimits(limits) || ageCheckDue)
        }
        guard let (request, limits, evicts) = request else { return }
        if evicts {
            _ = try? evictionRoundInSteps(
                limits: limits, now: Syscalls.nowMilliseconds(), protecting: request.protecting)
        }
        state.withLock { state in
            if state.poison == nil, state.index.deadPackBytes >= state.nextRepackCheck {
                _ = try? reclaimPacks(&state, capacity: nil)
                // Packs that stay above the live fraction are looked at again after as many more dead bytes.
                state.nextRepackCheck = state.index.deadPackBytes &+ StoreState.repackCheckInterval
            }
        }
        let compacts = state.withLock { state in
            state.poison == nil && !state.isClosed && state.wantsCompaction(configuration)
        }
        if compacts { _ = try? compactInSteps() }
    }

    /// Evicts what `limits` call for (``StoreIndex/evictionPlan(limits:now:protecting:)``), makes
    /// the evict records durable, and only then deletes every blob no entry refers to any more.
    /// With the exclusive lock and the state mutex held, after catching up (gc).
    func evictionRound(
        _ state: inout StoreState, limits: EvictionLimits, now: Int64, protecting key: StoreKey? = nil
    ) throws -> EvictionRound {
        let plan = try startEviction(&state, limits: limits, now: now, protecting: key)
        if evictionNeedsCommit(&state) { try groupCommitLocked(&state) }
        return try finishEviction(&state, plan: plan, limits: limits)
    }

    /// ``evictionRound(_:limits:now:protecting:)`` with the state mutex let go for its group
    /// commit. Holding ``writers`` and the exclusive lock, caught up: nothing but hints changes
    /// between the steps.
    func evictionRoundInSteps(limits: EvictionLimits, now: Int64, protecting key: StoreKey?) throws -> EvictionRound {
        let (plan, commits) = try state.withLock { state in
            let plan = try startEviction(&state, limits: limits, now: now, protecting: key)
            return (plan, evictionNeedsCommit(&state))
        }
        if commits { try commitOutsideMutex() }
        return try state.withLock { try finishEviction(&$0, plan: plan, limits: limits) }
    }

    /// The round's first step: plans it and appends the evict records (reporting them).
    ///
    /// Under SIEVE and S3-FIFO the records of expired and aged entries are conditional removes
    /// (`remove` with the digest), so that every `evict` record is the policy's choice, which
    /// other processes replay into their copy of the queue (docs/design.md, "Eviction policies").
    private func startEviction(_ state: inout StoreState, limits: EvictionLimits, now: Int64, protecting key: StoreKey?)
        throws -> EvictionPlan
    {
        state.preparePolicy(limits, layout: layout)
        let usesQueue = state.index.policy != nil
        let plan = state.index.evictionPlan(limits: limits, now: now, protecting: key)
        if let maxAge = limits.maxAge {
            let milliseconds = Int64(clamping: maxAge.clampedNanoseconds / 1_000_000)
            state.nextAgeCheck = now &+ max(10, milliseconds / 8)
        }
        if !plan.victims.isEmpty {
            let records = plan.victims.map { victim -> JournalRecord in
                let chosen = victim.reason != .expired && victim.reason != .aged
                return usesQueue && !chosen
                    ? .remove(key: victim.key, digest: victim.digest) : .evict(key: victim.key, digest: victim.digest)
            }
            do {
                try state.append(records)
            } catch {
                // The queue let its victims go; the index still holds them: the next round rebuilds it.
                state.index.policy = nil
                throw error
            }
            usage?.add(.evictions, plan.victims.count)
            usage?.add(.expiredEvictions, plan.count(.expired))
            usage?.add(.agedEvictions, plan.count(.aged))
            observers.publish(plan.victims.map { .evicted($0.key, $0.reason) })
        }
        return plan
    }

    /// Whether files are about to be deleted that a durable record must no longer refer to
    /// first: then the journal (with what other processes appended: their removes and
    /// overwrites made some of this garbage) is marked for the group commit, after the blobs,
    /// so that after a power loss no record refers to a deleted blob.
    private func evictionNeedsCommit(_ state: inout StoreState) -> Bool {
        guard configuration.durability != .none, !state.index.garbage.isEmpty || !state.index.deadPacks.isEmpty
        else { return false }
        state.unsynced.journal = true
        return true
    }

    /// The round's last step, once its records are durable: deletes the garbage, and rewrites
    /// packs when the round freed needles or the store is still over a limit.
    private func finishEviction(_ state: inout StoreState, plan: EvictionPlan, limits: EvictionLimits) throws
        -> EvictionRound
    {
        // A poisoned handle did not make the records durable: nothing may be deleted.
        if let poison = state.poison { throw poison }
        var round = EvictionRound(plan: plan, deleted: state.deleteGarbage(layout: layout))
        if !plan.victims.isEmpty || state.index.isOverLimits(limits) {
            round.repacked = try reclaimPacks(&state, capacity: limits.capacity)
        }
        return round
    }

    /// Refuses a value larger than the capacity. `size` is the value's size, or with
    /// `soFar` what a stream has delivered before it was cut off.
    func checkCapacity(_ size: UInt64, soFar: Bool = false) throws {
        guard let capacity = state.withLock({ $0.limits.capacity }), size > capacity else { return }
        throw BlobStoreError(
            .tooLarge,
            "The value is \(soFar ? "at least " : "")\(size) bytes, more than the store's capacity of \(capacity) bytes; it is not stored. "
                + "Raise the capacity (EvictionLimits.capacity), or store it elsewhere.", path: path)
    }
}
