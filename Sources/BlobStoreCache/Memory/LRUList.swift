import BlobStore

/// Values by key in recency order, with O(1) insert, lookup, promotion and removal of the least
/// recent: a doubly linked list of slots in one array, linked by index, and a dictionary from key
/// to slot. A hit hashes its key once; the list is relinked by index, without hashing again.
struct LRUList<Value> {
    private struct Slot {
        /// The key and value, or `nil` in a slot that is free.
        var entry: (key: StoreKey, value: Value)?
        /// The slot of the next more recent key, or `nil` for the most recent.
        var newer: Int?
        /// The slot of the next less recent key, or `nil` for the least recent.
        var older: Int?
    }

    /// The slots in use and, at the indices in `free`, empty ones to reuse.
    private var slots: [Slot] = []
    private var free: [Int] = []
    private var index: [StoreKey: Int] = [:]
    private var newest: Int?
    private var oldest: Int?

    var count: Int { index.count }

    /// The most recent key.
    var mostRecent: StoreKey? { newest.flatMap { slots[$0].entry?.key } }
    /// The least recent key.
    var leastRecent: StoreKey? { oldest.flatMap { slots[$0].entry?.key } }

    /// Calls `body` with each key and value from the least recent on, until it returns `false`.
    func forEachFromLeastRecent(_ body: (StoreKey, Value) -> Bool) {
        var cursor = oldest
        while let slot = cursor, let entry = slots[slot].entry {
            guard body(entry.key, entry.value) else { return }
            cursor = slots[slot].newer
        }
    }

    /// The value under `key`, without changing its recency.
    func peek(_ key: StoreKey) -> Value? { index[key].flatMap { slots[$0].entry?.value } }

    /// Changes the value under `key` in place, if there is one, without changing its recency.
    mutating func modify(_ key: StoreKey, _ change: (inout Value) -> Void) {
        guard let slot = index[key] else { return }
        change(&slots[slot].entry!.value)
    }

    /// The value under `key`, which becomes the most recent.
    mutating func use(_ key: StoreKey) -> Value? {
        guard let slot = index[key] else { return nil }
        if slot != newest {
            unlink(slot)
            linkAsNewest(slot)
        }
        return slots[slot].entry?.value
    }

    /// Inserts or replaces `value` as the most recent; returns the value it replaced.
    @discardableResult
    mutating func set(_ value: Value, for key: StoreKey) -> Value? {
        let old = remove(key)?.value
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
            slots[slot].entry = (key, value)
        } else {
            slot = slots.count
            slots.append(Slot(entry: (key, value)))
        }
        index[key] = slot
        linkAsNewest(slot)
        return old
    }

    /// Removes `key`; returns the entry as it was held (its key is the list's copy, so that a
    /// caller can let it go where it chooses).
    @discardableResult
    mutating func remove(_ key: StoreKey) -> (key: StoreKey, value: Value)? {
        guard let slot = index.removeValue(forKey: key) else { return nil }
        unlink(slot)
        free.append(slot)
        defer { slots[slot].entry = nil }
        return slots[slot].entry
    }

    /// Removes the least recent entry and returns it.
    mutating func removeLeastRecent() -> (key: StoreKey, value: Value)? {
        guard let key = leastRecent else { return nil }
        return remove(key)
    }

    /// Keys from the most recent to the least recent.
    var keysByRecency: [StoreKey] {
        var keys: [StoreKey] = []
        var cursor = newest
        while let slot = cursor {
            if let key = slots[slot].entry?.key { keys.append(key) }
            cursor = slots[slot].older
        }
        return keys
    }

    mutating func removeAll() {
        slots = []
        free = []
        index = [:]
        newest = nil
        oldest = nil
    }

    // MARK: - Links

    private mutating func linkAsNewest(_ slot: Int) {
        slots[slot].newer = nil
        slots[slot].older = newest
        if let previous = newest { slots[previous].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (slots[slot].newer, slots[slot].older)
        if let newer { slots[newer].older = older } else { newest = older }
        if let older { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = nil
        slots[slot].older = nil
    }
}
