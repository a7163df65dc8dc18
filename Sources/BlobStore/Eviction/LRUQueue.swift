/// Least recently used: a hit moves its entry to the head, eviction takes the tail. The store's
/// own LRU needs no queue (a round sorts the entries by their access times, which the journal
/// and the manifest keep); this one is the model `blobstore-bench hit-ratio` replays traces with.
package struct LRUQueue<Key: Hashable & Sendable>: EvictionQueue, Sendable {
    private var slots = QueueSlots<Key>(lists: 1)

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
        slots.unlink(slot)
        slots.pushHead(slot, to: 0)
    }

    package mutating func evict(sparing: Key?) -> (key: Key, size: UInt64)? {
        var tail = slots.lists[0].tail
        guard tail >= 0 else { return nil }
        if let sparing, slots[tail].key == sparing {
            tail = slots[tail].newer
            guard tail >= 0 else { return nil }
        }
        let victim = slots[tail]
        slots.delete(tail)
        return (victim.key, victim.size)
    }

    package mutating func remove(_ key: Key) {
        if let slot = slots.slot(of: key) { slots.delete(slot) }
    }

    package mutating func evict(_ key: Key) { remove(key) }

    package mutating func resize(_ key: Key, to size: UInt64) {
        if let slot = slots.slot(of: key) { slots.resize(slot, to: size) }
    }

    /// The keys from the least to the most recently used.
    package var keysInEvictionOrder: [Key] { slots.keys(oldestFirstIn: 0) }
}
