import Foundation

// MARK: - Recording accesses

extension BlobStore {
    /// Records a read of `key` for eviction without reading its blob, as a hit served from a
    /// cache in front of the store (the memory tier of `BlobStoreCache`) would.
    ///
    /// The access is buffered and appended with the others (access times are hints, never synced
    /// on their own); hits and misses in ``stats()-6aleh`` do not change.
    ///
    /// - Parameter key: The key that was read.
    /// - Returns: Whether `key` has an unexpired entry (an absent key records nothing).
    /// - Throws: ``BlobStoreError`` with code `closed` or `poisoned`.
    @discardableResult
    public func touch(_ key: StoreKey) throws -> Bool {
        try touch(key) { _ in true }
    }

    /// Records a read of `key`, as ``touch(_:)-9byp3`` does, only if its entry still has `digest`,
    /// `metadata` and `expires` (to the millisecond the store keeps); returns whether it did.
    /// For a memory tier's hit, so that it is served only while it matches the disk: another
    /// process may have overwritten or removed the entry since. Catching up costs no system call
    /// unless another process wrote since (the change counter).
    public func touch(_ key: StoreKey, ifUnchanged digest: SHA256Digest, metadata: Data, expires: Date?) throws
        -> Bool
    {
        let expiry = expires.map { max(0, $0.milliseconds) }
        return try touch(key) { entry in entry.expires == expiry && entry.holds(digest, metadata: metadata) }
    }

    /// Records a read of `key` if it has an unexpired entry that `matches` accepts.
    private func touch(_ key: StoreKey, where matches: (IndexEntry) -> Bool) throws -> Bool {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            let now = Syscalls.nowMilliseconds()
            guard let entry = state.index.unexpired(key, at: now), matches(entry) else { return false }
            state.index.touch(key, at: now)
            queueAccess(key, at: now, &state)
            return true
        }
    }

    /// Queues a read of `key` for the journal (the index has noted it: ``StoreIndex/touch(_:at:)``,
    /// ``StoreIndex/hit(_:at:)``), and appends the queue once it holds
    /// ``Configuration/accessBatchSize`` items or 1 MiB. Call with the mutex held.
    func queueAccess(_ key: StoreKey, at now: Int64, _ state: inout StoreState) {
        state.queueAccess(key, at: now)
        if state.pendingAccess.count >= configuration.accessBatchSize || state.pendingAccessBytes >= 1 << 20 {
            appendAccessHints(&state)
        }
    }
}
