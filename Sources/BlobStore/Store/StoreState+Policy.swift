import Glibc

// MARK: - The eviction policy's queue

extension StoreState {
    /// Makes sure the index holds the queue `limits` need (SIEVE, S3-FIFO), building it when it
    /// holds none made for them: the manifest's entries in the order `policy-<gen>` recorded
    /// (``PolicySnapshot``), then this generation's journal replayed over them up to where this
    /// process has read it, then the reads this process has not appended yet. So the queue is
    /// the one this process would hold had it kept it since opening, and the one every other
    /// process builds from the same files. Call caught up, holding the exclusive lock.
    ///
    /// A store whose manifest is not read in place (format 1, decoded into memory) gets its
    /// entries in order of creation instead.
    mutating func preparePolicy(_ limits: EvictionLimits, layout: StoreLayout) {
        if let held = index.policy, held.fits(limits) { return }
        index.policy = nil
        guard let empty = PolicyState(limits) else { return }
        var rebuilt = StoreIndex()
        var policy = empty
        if let base = index.base {
            var entries: [ManifestEntry] = []
            entries.reserveCapacity(Int(clamping: base.totals.entries))
            base.forEachEntry { entries.append($0) }
            policy.restore(snapshot(layout, entries: entries.count), entries: entries, generation: generation)
            rebuilt = StoreIndex(base: base)
        } else if manifestBytes > 0 {
            index.policy = inCreationOrder(empty)
            return
        }
        rebuilt.policy = policy
        let header = Int64(JournalFormat.fileHeaderSize)
        if journal.end > header, let bytes = try? LoadedGeneration.readAll(journal.descriptor, from: header) {
            let read = min(bytes.count, Int(journal.end - header))
            _ = bytes.withUnsafeBytes { buffer in
                JournalReader.scan(UnsafeRawBufferPointer(rebasing: buffer[..<read])) { record, _ in
                    rebuilt.apply(record)
                }
            }
        }
        for access in pendingAccess { rebuilt.touch(access.key, at: access.time) }
        // Had the replay not come out at the index's entries (a journal this process could not
        // read again), the entries in order of creation are the next best thing.
        guard let replayed = rebuilt.policy, replayed.count == index.count else {
            index.policy = inCreationOrder(empty)
            return
        }
        index.policy = replayed
    }

    /// `empty` holding the index's entries in order of creation (then key), none marked.
    private func inCreationOrder(_ empty: PolicyState) -> PolicyState {
        var entries: [ManifestEntry] = []
        index.forEachManifestEntry { entries.append($0) }
        var policy = empty
        policy.restore(nil, entries: entries, generation: generation)
        return policy
    }

    /// `policy-<gen>`, if it is a regular file of a size a snapshot of `entries` entries can have
    /// and it decodes. Opened without blocking (a FIFO there must not hang a round that holds the
    /// exclusive lock), and never read whole when it is larger than that.
    private func snapshot(_ layout: StoreLayout, entries: Int) -> PolicySnapshot? {
        let path = layout.policy(generation: generation)
        guard let fd = try? Syscalls.openIfExists(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { Syscalls.close(fd) }
        guard let info = try? Syscalls.fstat(fd), info.st_mode & S_IFMT == S_IFREG,
            info.st_size <= PolicySnapshot.largestSize(entries: entries),
            let bytes = try? LoadedGeneration.readAll(fd, from: 0)
        else { return nil }
        return PolicySnapshot.decode(bytes)
    }
}
