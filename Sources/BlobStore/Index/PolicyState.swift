/// The state of the store's eviction policy over its entries, for ``EvictionPolicy/sieve`` and
/// ``EvictionPolicy/s3fifo`` (LRU needs nothing beyond the entries' access times): their queue,
/// kept up to date as the index applies records and notes reads (docs/design.md, "Eviction
/// policies").
///
/// Every process that replays the same journal keeps the same queue: a put inserts, a read (an
/// access record, or this process's own read) marks, a remove or an expiry removes, and an
/// `evict` record moves the queue as the evicting process's choice moved it
/// (``EvictionQueue/evict(_:)``). Entries are counted by the disk their blob takes when the
/// limits have a capacity, else one each.
struct PolicyState: Sendable {
    let policy: EvictionPolicy
    /// The limit the queue was made for: bytes of capacity, or entries.
    let capacity: UInt64
    let countsBytes: Bool
    private(set) var sieve: SieveQueue<StoreKey>?
    private(set) var s3fifo: S3FIFOQueue<StoreKey>?

    /// An empty state for `limits`, or `nil` when they need none (LRU, or no capacity or entry
    /// limit to evict for).
    init?(_ limits: EvictionLimits) {
        guard limits.policy != .lru else { return nil }
        if let capacity = limits.capacity {
            (self.capacity, countsBytes) = (capacity, true)
        } else if let maxEntries = limits.maxEntries {
            (self.capacity, countsBytes) = (UInt64(maxEntries), false)
        } else {
            return nil
        }
        policy = limits.policy
        switch policy {
        case .lru: return nil
        case .sieve: sieve = SieveQueue()
        case .s3fifo:
            s3fifo = S3FIFOQueue(capacity: capacity, admitsLargeToMain: true, ghostID: { ManifestFormat.keyHash($0) })
        }
    }

    /// Whether the state was made for `limits` (a change of policy or limit makes a new one).
    func fits(_ limits: EvictionLimits) -> Bool {
        guard limits.policy == policy else { return false }
        if countsBytes { return limits.capacity == capacity }
        return limits.capacity == nil && limits.maxEntries.map(UInt64.init) == capacity
    }

    /// What an entry of `size` bytes at `location` counts for.
    func weight(size: UInt64, location: BlobLocation) -> UInt64 {
        Self.weight(size: size, location: location, countsBytes: countsBytes)
    }

    private static func weight(size: UInt64, location: BlobLocation, countsBytes: Bool) -> UInt64 {
        guard countsBytes else { return 1 }
        // A chunked value weighs its size: its chunks, shared or not, take about that much.
        return location == .chunked ? size : StoreIndex.allocatedBytes(size: size, location: location)
    }

    var count: Int { sieve?.count ?? s3fifo?.count ?? 0 }

    func contains(_ key: StoreKey) -> Bool { sieve?.contains(key) ?? s3fifo?.contains(key) ?? false }

    /// A put of `key`: a new entry is inserted, an overwrite counts as a read of it.
    mutating func put(_ key: StoreKey, weight: UInt64) {
        if contains(key) {
            sieve?.resize(key, to: weight)
            s3fifo?.resize(key, to: weight)
            access(key)
            return
        }
        sieve?.insert(key, size: weight)
        if s3fifo != nil {
            s3fifo!.noteMiss(key)
            s3fifo!.insert(key, size: weight)
        }
    }

    /// A read of `key`.
    mutating func access(_ key: StoreKey) {
        sieve?.access(key)
        s3fifo?.access(key)
    }

    /// `key` went for another reason than the policy's choice (a remove, an expiry, an age).
    mutating func remove(_ key: StoreKey) {
        sieve?.remove(key)
        s3fifo?.remove(key)
    }

    /// `key` was evicted by a round, here or in another process.
    mutating func evicted(_ key: StoreKey) {
        sieve?.evict(key)
        s3fifo?.evict(key)
    }

    /// Chooses and takes out the policy's next victim, passing over `sparing` (the entry a put
    /// just wrote) as over an entry read since; `nil` when nothing else is held.
    mutating func nextVictim(sparing: StoreKey?) -> StoreKey? {
        if sieve != nil { return sieve!.evict(sparing: sparing)?.key }
        if s3fifo != nil { return s3fifo!.evict(sparing: sparing)?.key }
        return nil
    }

    /// Why an eviction this policy chose is made.
    var reason: EvictionReason { policy == .s3fifo ? .s3fifo : .sieve }
}

// MARK: - Snapshots

extension PolicyState {
    /// The queue as `policy-<generation>` keeps it.
    func snapshot(generation: UInt64) -> PolicySnapshot {
        var snapshot = PolicySnapshot(
            generation: generation, policy: policy, countsBytes: countsBytes, capacity: capacity, hasEvicted: false,
            lists: [], ghost: [], hand: nil)
        if let sieve {
            let state = sieve.snapshot
            snapshot.lists = [
                state.entries.map { .init(keyHash: ManifestFormat.keyHash($0.key), mark: $0.visited ? 1 : 0) }
            ]
            snapshot.hand = state.hand.map(ManifestFormat.keyHash)
        }
        if let s3fifo {
            let state = s3fifo.snapshot
            snapshot.lists = [state.small, state.main].map { list in
                list.map { .init(keyHash: ManifestFormat.keyHash($0.key), mark: $0.frequency) }
            }
            snapshot.ghost = state.ghost.map { .init(keyHash: $0.id, size: $0.size) }
            snapshot.hasEvicted = state.hasEvicted
        }
        return snapshot
    }

    /// The queue over `entries` (a manifest's), as `snapshot` left it when it was made for these
    /// limits and this generation; entries it does not name (or names ambiguously) follow, in
    /// order of creation (then key), unread. Without a snapshot, that is every entry.
    mutating func restore(_ snapshot: PolicySnapshot?, entries: [ManifestEntry], generation: UInt64) {
        var byHash: [UInt64: ManifestEntry?] = [:]
        byHash.reserveCapacity(entries.count)
        for entry in entries {
            let hash = ManifestFormat.keyHash(entry.key)
            // Two keys with one hash: neither is restored by the snapshot (both follow it).
            byHash[hash] = byHash[hash] == nil ? entry : .some(nil)
        }
        func take(_ hash: UInt64) -> ManifestEntry? {
            guard let found = byHash[hash], let entry = found else { return nil }
            byHash[hash] = .some(nil)
            return entry
        }
        let countsBytes = countsBytes
        func weight(_ item: ManifestEntry) -> UInt64 {
            Self.weight(size: item.entry.size, location: item.location, countsBytes: countsBytes)
        }
        let usable =
            snapshot.map {
                $0.generation == generation && $0.policy == policy && $0.countsBytes == countsBytes
                    && $0.capacity == capacity
            } ?? false
        var restored = Set<StoreKey>()
        if usable, let snapshot {
            var hand: StoreKey?
            for (index, list) in snapshot.lists.enumerated() {
                for item in list {
                    guard let entry = take(item.keyHash) else { continue }
                    restored.insert(entry.key)
                    if item.keyHash == snapshot.hand { hand = entry.key }
                    sieve?.restore(entry.key, size: weight(entry), visited: item.mark != 0)
                    s3fifo?.restore(
                        .init(key: entry.key, size: weight(entry), frequency: item.mark), inMain: index == 1)
                }
            }
            for ghost in snapshot.ghost { s3fifo?.restoreGhost(ghost.keyHash, size: ghost.size) }
            s3fifo?.restore(hasEvicted: snapshot.hasEvicted)
            sieve?.restore(hand: hand)
        } else {
            s3fifo?.restore(hasEvicted: !entries.isEmpty)
        }
        let rest = entries.filter { !restored.contains($0.key) }.sorted {
            ($0.entry.created, $0.key) < ($1.entry.created, $1.key)
        }
        for entry in rest {
            sieve?.restore(entry.key, size: weight(entry), visited: false)
            s3fifo?.restore(.init(key: entry.key, size: weight(entry), frequency: 0), inMain: true)
        }
    }
}
