import Foundation

// MARK: - Removing entries, changing an entry's metadata

extension BlobStore {
    /// The entries this process removes from now on, as events (``StoreEvent``): by a remove,
    /// a `removeAll`, or an eviction round. Each call makes a stream of its own; it ends when the
    /// store closes or its consumer stops iterating. Removals by other processes are not
    /// reported (their records are read as changes to catch up with, not as events).
    ///
    /// - Parameter bufferingPolicy: What the stream keeps for a consumer that falls behind.
    ///   Default: every event (a slow consumer of a store that evicts millions of entries holds
    ///   them all in memory); `.bufferingNewest(n)` keeps the last `n`.
    public func events(
        bufferingPolicy: AsyncStream<StoreEvent>.Continuation.BufferingPolicy = .unbounded
    ) -> AsyncStream<StoreEvent> {
        observers.stream(bufferingPolicy: bufferingPolicy)
    }

    /// Removes `key`; returns whether it was there (an expired entry counts as absent, as for
    /// ``contains(_:)-95wom``, and is left to eviction). The blob stays until garbage collection finds
    /// no key referring to it.
    @discardableResult
    public func remove(_ key: StoreKey) throws -> Bool {
        try write { state in
            guard state.index.unexpired(key, at: Syscalls.nowMilliseconds()) != nil else { return false }
            try state.append([.remove(key: key, digest: nil)])
            observers.publish([.removed(key)])
            try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
            maintainAfterWrite(&state, protecting: nil)
            return true
        }
    }

    /// Removes every entry and returns how many there were. Unlike a remove per key, their
    /// blobs go at once: the removes are followed by a compaction, which deletes the loose blobs
    /// and every pack but the newest (whose file stays, counted as nothing, for the next
    /// needles). The result is synced in every durability mode.
    @discardableResult
    public func removeAll() throws -> Int {
        try writeInSteps {
            let count = try state.withLock { state -> Int in
                var removes: [JournalRecord] = []
                removes.reserveCapacity(state.index.count)
                state.index.forEachEntry { key, _ in removes.append(.remove(key: key, digest: nil)) }
                guard !removes.isEmpty else { return 0 }
                try Self.append(removes, &state)
                observers.publish([.cleared(count: removes.count)])
                return removes.count
            }
            if count > 0 { _ = try compactInSteps() }
            return count
        }
    }

    /// Removes every entry `shouldRemove` accepts, expired ones included; returns how many went.
    /// The blobs go as after ``remove(_:)-9mnpa``: at the next eviction round, compaction or garbage
    /// collection.
    ///
    /// `shouldRemove` runs on a snapshot of the entries, with no lock held (it may call the
    /// store). An entry overwritten after the snapshot is kept: only the value the predicate saw
    /// is removed.
    @discardableResult
    public func removeAll(where shouldRemove: (EntryInfo) throws -> Bool) throws -> Int {
        let snapshot = try state.withLock { state -> [(key: StoreKey, value: IndexEntry)] in
            try checkWritable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            return state.index.entries
        }
        let chosen = try snapshot.filter { try shouldRemove(EntryInfo(key: $0.key, entry: $0.value)) }
        guard !chosen.isEmpty else { return 0 }
        return try write { state in
            let present = chosen.filter { state.index[$0.key]?.digest == $0.value.digest }
            try Self.append(present.map { .remove(key: $0.key, digest: $0.value.digest) }, &state)
            observers.publish(present.map { .removed($0.key) })
            try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
            maintainAfterWrite(&state, protecting: nil)
            return present.count
        }
    }

    /// Removes every entry whose key starts with the bytes of `prefix` (`"https://example.com/"`,
    /// say); returns how many went.
    @discardableResult
    public func removeAll(withKeyPrefix prefix: StoreKey) throws -> Int {
        try removeAll { $0.key.bytes.starts(with: prefix.bytes) }
    }

    /// Removes every entry last read or written before `date` (PINCache's `trimToDate:`);
    /// returns how many went. Access times are recorded in batches: a read in another process
    /// that has not appended its batch yet does not count.
    @discardableResult
    public func removeAll(accessedBefore date: Date) throws -> Int {
        try removeAll { $0.lastAccess < date }
    }

    /// Replaces `key`'s metadata and expiry, keeping its value (no blob is read or written, as
    /// for an HTTP 304 that refreshes a stored response's headers); returns whether the key was
    /// there. The entry keeps its creation time; the change counts as an access.
    @discardableResult
    public func update(_ key: StoreKey, metadata: Data, expires: Date?) throws -> Bool {
        try checkLimits(key: key, metadata: metadata)
        return try write { state in
            let now = Syscalls.nowMilliseconds()
            guard let entry = state.index.unexpired(key, at: now) else { return false }
            var record = JournalRecord.PutRecord(
                key: key, digest: entry.digest, size: entry.size, created: entry.created,
                expires: expires.map { max(0, $0.milliseconds) }, metadata: Array(metadata),
                location: state.index.blob(entry.digest)?.location ?? .loose)
            if record.location == .chunked {
                // A chunked put carries its recipe, as every chunked put does.
                guard let recipe = state.index.placedRecipe(entry.digest) else {
                    throw BlobStoreError(
                        .corrupt,
                        "The value for key '\(key)' is damaged: its recipe cannot be read, so it was not updated. "
                            + "Verify the store with repair (BlobStore.verify(repair: true)), then store the value again."
                    )
                }
                record.recipe = recipe
            }
            try state.append([
                .put(record), .access([JournalRecord.AccessItem(key: key, time: max(now, entry.created))]),
            ])
            try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
            maintainAfterWrite(&state, protecting: key)
            return true
        }
    }

    /// Appends many records in writes of 4,096, so that a removal of millions of keys never
    /// builds one buffer of them all.
    private static func append(_ records: [JournalRecord], _ state: inout StoreState) throws {
        for start in stride(from: 0, to: records.count, by: 4096) {
            try state.append(Array(records[start..<min(start + 4096, records.count)]))
        }
    }
}
