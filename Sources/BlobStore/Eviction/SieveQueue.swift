/// SIEVE (Zhang et al., NSDI 2024), as libCacheSim's `Sieve.c` runs it: one FIFO queue, new
/// entries at the head; a hit sets the entry's visited bit and moves nothing. To evict, the hand
/// starts where it stopped (at the tail the first time or after it ran off the head), clears the
/// visited bits it passes while moving toward the head (wrapping to the tail), and evicts the
/// first entry without one; it then rests on the entry newer than the victim. Entries that were
/// read stay where they are, so new entries that are never read again leave first.
package struct SieveQueue<Key: Hashable & Sendable>: EvictionQueue, Sendable {
    private var slots = QueueSlots<Key>(lists: 1)
    /// Where the next eviction starts looking, or -1 for the tail.
    private var hand: Int32 = -1

    package init() {}

    package var count: Int { slots.count }
    package var bytes: UInt64 { slots.lists[0].bytes }
    package func contains(_ key: Key) -> Bool { slots.slot(of: key) != nil }
    package func canAdmit(size: UInt64) -> Bool { true }
    package mutating func noteMiss(_ key: Key) {}

    @discardableResult
    package mutating func insert(_ key: Key, size: UInt64) -> Bool {
        precondition(!contains(key), "a key is inserted once")
        slots.add(key, size: size, to: 0)
        return true
    }

    package mutating func access(_ key: Key) {
        guard let slot = slots.slot(of: key) else { return }
        slots[slot].mark = 1
    }

    package mutating func evict(sparing: Key?) -> (key: Key, size: UInt64)? {
        let tail = slots.lists[0].tail
        let spared = sparing.flatMap { slots.slot(of: $0) } ?? -1
        guard tail >= 0, slots.count > (spared >= 0 ? 1 : 0) else { return nil }
        var slot = hand >= 0 ? hand : tail
        while slots[slot].mark != 0 || slot == spared {
            slots[slot].mark = 0
            let newer = slots[slot].newer
            slot = newer >= 0 ? newer : tail
        }
        let victim = slots[slot]
        hand = victim.newer
        slots.delete(slot)
        return (victim.key, victim.size)
    }

    package mutating func remove(_ key: Key) {
        guard let slot = slots.slot(of: key) else { return }
        if slot == hand { hand = slots[slot].newer }
        slots.delete(slot)
    }

    package mutating func evict(_ key: Key) {
        guard let target = slots.slot(of: key) else { return }
        // That hand moved from where it rested as ``evict(sparing:)`` moves it, clearing the
        // bits it passed, until it stopped at the victim without one: round the whole queue
        // first if every entry was read. The walk ends within two rounds: it clears what it passes.
        let tail = slots.lists[0].tail
        var slot = hand >= 0 ? hand : tail
        while slot != target || slots[slot].mark != 0 {
            slots[slot].mark = 0
            let newer = slots[slot].newer
            slot = newer >= 0 ? newer : tail
        }
        hand = slots[target].newer
        slots.delete(target)
    }

    package mutating func resize(_ key: Key, to size: UInt64) {
        if let slot = slots.slot(of: key) { slots.resize(slot, to: size) }
    }

    // MARK: - Snapshots

    /// The queue's state for the store's snapshot of it: the entries oldest first with their
    /// visited bits, and the key the hand rests on (`nil`: the tail).
    package var snapshot: (entries: [(key: Key, size: UInt64, visited: Bool)], hand: Key?) {
        let entries = slots.entries(oldestFirstIn: 0).map { (key: $0.key, size: $0.size, visited: $0.mark != 0) }
        return (entries, hand >= 0 ? slots[hand].key : nil)
    }

    /// Appends `key` (not held) at the head.
    package mutating func restore(_ key: Key, size: UInt64, visited: Bool) {
        guard !contains(key) else { return }
        slots.add(key, size: size, mark: visited ? 1 : 0, to: 0)
    }

    /// Puts the hand on `key` (`nil` or not held: the tail).
    package mutating func restore(hand key: Key?) { hand = key.flatMap { slots.slot(of: $0) } ?? -1 }

    /// Whether `key` is held with its visited bit set.
    package func isVisited(_ key: Key) -> Bool { slots.slot(of: key).map { slots[$0].mark != 0 } ?? false }

    /// The keys from the oldest to the newest.
    package var keysInInsertionOrder: [Key] { slots.keys(oldestFirstIn: 0) }
}
