import Glibc

// MARK: - Reclaiming dead needles

extension BlobStore {
    /// What one ``reclaimPacks(_:capacity:)`` did.
    struct RepackOutcome: Equatable, Sendable {
        /// Packs whose live needles were copied out.
        var packsRewritten = 0
        /// Needles copied.
        var needlesMoved = 0
    }

    /// Gives back the disk of dead needles. Every pack whose live fraction is below
    /// ``Configuration/repackLiveFraction`` is rewritten (and with `capacity`, further packs,
    /// least live first, until the store's counted bytes fit it): its live needles are read,
    /// rehashed and appended to the newest pack, `relocate` records are appended, and once the
    /// copies and the records are synced (in every durability mode: the old pack is deleted
    /// next) the old file is unlinked, with every pack in which nothing is live. Exclusive lock
    /// held, after catching up (docs/design.md, "Packs").
    ///
    /// Other processes keep reading an old pack they have mapped, and find a pack gone only
    /// for needles they have not caught up with: a read then catches up and finds the copy.
    @discardableResult
    func reclaimPacks(_ state: inout StoreState, capacity: UInt64?) throws -> RepackOutcome {
        var outcome = RepackOutcome()
        let chosen = packsToRewrite(state.index, capacity: capacity)
        if !chosen.isEmpty {
            try rewrite(chosen, &state, &outcome)
        } else if !state.index.deadPacks.isEmpty, configuration.durability != .none {
            // The records that killed their needles must be durable before the files go.
            state.unsynced.journal = true
            try groupCommitLocked(&state)
        }
        state.deleteDeadPacks(layout: layout)
        return outcome
    }

    /// The packs a reclaim rewrites, least live first.
    private func packsToRewrite(_ index: StoreIndex, capacity: UInt64?) -> [UInt32] {
        let candidates = index.packs.filter { $0.value.live > 0 }
            .sorted { ($0.value.liveFraction, $0.key) < ($1.value.liveFraction, $1.key) }
        var chosen: [UInt32] = []
        var freed: UInt64 = 0
        for (number, usage) in candidates {
            let isMostlyDead = usage.liveFraction < configuration.repackLiveFraction
            let isOver = capacity.map { index.storedBytes &+ index.garbageBytes &- freed > $0 } ?? false
            guard isMostlyDead || isOver else { break }
            chosen.append(number)
            freed &+= usage.end &- usage.live
        }
        return chosen
    }

    /// Copies the live needles of `numbers` to the newest pack and journals the moves, synced.
    private func rewrite(_ numbers: [UInt32], _ state: inout StoreState, _ outcome: inout RepackOutcome) throws {
        var records: [JournalRecord] = []
        var retired: [FileDescriptor] = []
        var createdPack = false
        defer { for fd in retired { Syscalls.close(fd) } }
        for blob in state.index.packedBlobs(in: Set(numbers)) {
            let read = state.packs.read(blob.location, size: blob.size, digest: blob.digest, layout: layout)
            guard case .found(let data) = Self.checked(read, digest: blob.digest, verify: true) else {
                // Never copy damage: the entries go, as a read would drop them.
                records += state.index.keys(referring: blob.digest).map { .remove(key: $0, digest: blob.digest) }
                continue
            }
            let appended = try data.withUnsafeBytes {
                try state.packs.append(
                    $0, digest: blob.digest, index: state.index, layout: layout, fileMode: configuration.fileMode,
                    rotateAt: configuration.effectivePackSize, avoiding: Set(numbers))
            }
            state.index.noteNeedle(at: appended.location, size: blob.size)
            retired += appended.retired
            createdPack = createdPack || appended.createdPack
            records.append(
                .relocate(
                    JournalRecord.RelocateRecord(
                        digest: blob.digest, size: blob.size, from: blob.location, to: appended.location)))
            outcome.needlesMoved += 1
        }
        #if BLOBSTORE_FAULT_INJECTION
            TestHooks.reach(.repackNeedlesCopied)
        #endif
        let journal = state.journal.descriptor
        let writer = state.packs.writer?.descriptor
        try syncOrPoison(&state) {
            for fd in retired { try Syscalls.fdatasync(fd) }
            if let writer { try Syscalls.fdatasync(writer) }
            if createdPack { try Syscalls.fsyncDirectory(layout.packsDirectory) }
        }
        try state.append(records)
        try syncOrPoison(&state) { try Syscalls.fdatasync(journal) }
        state.unsynced.journal = false
        #if BLOBSTORE_FAULT_INJECTION
            TestHooks.reach(.repackJournaled)
        #endif
        outcome.packsRewritten += numbers.count
    }
}
