/// S3-FIFO (Yang et al., SOSP 2023), as libCacheSim's `S3FIFO.c` runs it with its defaults.
///
/// - A **small** FIFO queue of a tenth of the capacity takes new entries; a **main** FIFO queue
///   takes the rest; a **ghost** FIFO queue remembers the keys (and sizes, up to nine tenths of
///   the capacity) of entries evicted from the small queue.
/// - A hit adds one to the entry's frequency (it saturates at 3) and moves nothing.
/// - A miss whose key is in the ghost queue goes into the main queue; any other into the small
///   one, unless it is at least the small queue's size (declined), or the small queue is full
///   before the first eviction (then the main one).
/// - Eviction takes from the main queue when it is over its share or the small queue is empty,
///   else from the small one. From the small queue: an entry read at least twice moves to the main
///   queue (frequency 0), the first one that was not leaves and its key goes to the ghost queue.
///   From the main queue: an entry read since it was last passed goes back to the head with its
///   frequency (at most 3) less one, the first one that was not leaves.
package struct S3FIFOQueue<Key: Hashable & Sendable>: EvictionQueue, Sendable {
    /// The fraction of the capacity the small queue gets.
    package static var smallFraction: Double { 0.1 }
    /// The fraction of the capacity whose worth of keys the ghost queue remembers.
    package static var ghostFraction: Double { 0.9 }
    /// How many hits move an entry from the small queue to the main one.
    package static var promotionHits: UInt8 { 2 }

    private static var small: Int { 0 }
    private static var main: Int { 1 }

    private var slots = QueueSlots<Key>(lists: 2)
    /// The ghost queue, by ``ghostID`` (a key's stable 64-bit hash: it is all that is kept of
    /// an evicted entry, and what the store's snapshot of the queue records).
    private var ghost = QueueSlots<UInt64>(lists: 1)
    private let ghostID: @Sendable (Key) -> UInt64
    private let capacity: UInt64
    private let smallCapacity: UInt64
    private let mainCapacity: UInt64
    private let ghostCapacity: UInt64
    /// The last ``noteMiss(_:)`` found its key in the ghost queue.
    private var missWasGhost = false
    /// Nothing was evicted yet: a full small queue then sends new entries to the main one.
    private var hasEvicted = false
    /// An entry at least as large as the small queue goes to the main queue instead of being
    /// declined (the store, which has stored it already, needs it in a queue).
    private let admitsLargeToMain: Bool

    /// An empty queue whose small, main and ghost shares are those of `capacity` bytes; the ghost
    /// queue remembers a key by `ghostID(key)`. An entry at least as large as the small queue is
    /// declined, as libCacheSim declines it, or with `admitsLargeToMain` put in the main queue.
    package init(capacity: UInt64, admitsLargeToMain: Bool = false, ghostID: @escaping @Sendable (Key) -> UInt64) {
        self.capacity = capacity
        self.admitsLargeToMain = admitsLargeToMain
        self.ghostID = ghostID
        smallCapacity = UInt64(Double(capacity) * Self.smallFraction)
        mainCapacity = capacity - smallCapacity
        ghostCapacity = UInt64(Double(capacity) * Self.ghostFraction)
    }

    package var count: Int { slots.count }
    package var bytes: UInt64 { slots.lists[Self.small].bytes &+ slots.lists[Self.main].bytes }
    package func contains(_ key: Key) -> Bool { slots.slot(of: key) != nil }
    package func canAdmit(size: UInt64) -> Bool { admitsLargeToMain || (size <= smallCapacity && size <= capacity) }

    package mutating func noteMiss(_ key: Key) {
        missWasGhost = false
        if let slot = ghost.slot(of: ghostID(key)) {
            ghost.delete(slot)
            missWasGhost = true
        }
    }

    @discardableResult
    package mutating func insert(_ key: Key, size: UInt64) -> Bool {
        precondition(!contains(key), "a key is inserted once")
        if missWasGhost {
            missWasGhost = false
            slots.add(key, size: size, to: Self.main)
            return true
        }
        guard size < smallCapacity else {
            guard admitsLargeToMain else { return false }
            slots.add(key, size: size, to: Self.main)
            return true
        }
        let isSmallFull = slots.lists[Self.small].bytes >= smallCapacity
        slots.add(key, size: size, to: !hasEvicted && isSmallFull ? Self.main : Self.small)
        return true
    }

    package mutating func access(_ key: Key) {
        guard let slot = slots.slot(of: key) else { return }
        slots[slot].mark = min(slots[slot].mark + 1, 3)
    }

    package mutating func evict(sparing: Key?) -> (key: Key, size: UInt64)? {
        let spared = sparing.flatMap { slots.slot(of: $0) } ?? -1
        guard slots.count > (spared >= 0 ? 1 : 0) else { return nil }
        hasEvicted = true
        while true {
            if slots.lists[Self.main].bytes > mainCapacity || slots.lists[Self.small].bytes == 0 {
                if let victim = evictMain(sparing: spared) { return victim }
                // The main queue holds nothing but the spared entry: the victim is in the small one.
                guard slots.lists[Self.small].count > 0 else { return nil }
            }
            if let victim = evictSmall(sparing: spared) { return victim }
        }
    }

    package mutating func remove(_ key: Key) {
        if let slot = slots.slot(of: key) {
            slots.delete(slot)
        } else if let slot = ghost.slot(of: ghostID(key)) {
            ghost.delete(slot)
        }
    }

    package mutating func evict(_ key: Key) {
        guard let target = slots.slot(of: key) else { return }
        hasEvicted = true
        let inSmall = Int(slots[target].list) == Self.small
        if inSmall && slots[target].mark < Self.promotionHits {
            // Evicted from the small queue: the entries older than it were read twice (or spared)
            // and moved on.
            while slots.lists[Self.small].tail != target { promote(slots.lists[Self.small].tail) }
            let victim = slots[target]
            slots.delete(target)
            remember(victim.key, size: victim.size)
            return
        }
        // Evicted from the main queue. Had the choice looked at the small queue first (or found
        // the victim there, read twice), everything there moved on to the main queue first.
        if inSmall || (slots.lists[Self.main].bytes <= mainCapacity && slots.lists[Self.small].bytes > 0) {
            while slots.lists[Self.small].tail >= 0 { promote(slots.lists[Self.small].tail) }
        }
        // The main queue's entries went round again, each read one read less, until the victim
        // came to the tail unread (more than one round when it had been read).
        while slots.lists[Self.main].tail != target || slots[target].mark != 0 {
            giveAnotherRound(slots.lists[Self.main].tail)
        }
        slots.delete(target)
    }

    package mutating func resize(_ key: Key, to size: UInt64) {
        if let slot = slots.slot(of: key) { slots.resize(slot, to: size) }
    }

    /// Whether `key` is held in the main queue.
    package func isInMain(_ key: Key) -> Bool {
        slots.slot(of: key).map { Int(slots[$0].list) == Self.main } ?? false
    }

    /// Whether `key` is remembered by the ghost queue.
    package func isGhost(_ key: Key) -> Bool { ghost.slot(of: ghostID(key)) != nil }

    /// Moves the small queue's entries read twice (and `spared`) to the main queue until one that
    /// was not is found, evicted and remembered; `nil` when the small queue ran empty first.
    private mutating func evictSmall(sparing spared: Int32) -> (key: Key, size: UInt64)? {
        while true {
            let slot = slots.lists[Self.small].tail
            guard slot >= 0 else { return nil }
            if slots[slot].mark >= Self.promotionHits || slot == spared {
                promote(slot)
                continue
            }
            let victim = slots[slot]
            slots.delete(slot)
            remember(victim.key, size: victim.size)
            return (victim.key, victim.size)
        }
    }

    /// Gives the main queue's entries read since they were passed (and `spared`) another round
    /// (frequency less one) until one that was not is found and evicted; `nil` when the main
    /// queue holds nothing else.
    private mutating func evictMain(sparing spared: Int32) -> (key: Key, size: UInt64)? {
        while true {
            let slot = slots.lists[Self.main].tail
            guard slot >= 0, !(slot == spared && slots.lists[Self.main].count == 1) else { return nil }
            if slots[slot].mark >= 1 || slot == spared {
                giveAnotherRound(slot)
                continue
            }
            let victim = slots[slot]
            slots.delete(slot)
            return (victim.key, victim.size)
        }
    }

    /// Moves a small queue's entry to the head of the main queue, frequency 0.
    private mutating func promote(_ slot: Int32) {
        slots.unlink(slot)
        slots[slot].mark = 0
        slots.pushHead(slot, to: Self.main)
    }

    /// Moves a main queue's entry back to its head, frequency less one.
    private mutating func giveAnotherRound(_ slot: Int32) {
        slots.unlink(slot)
        slots[slot].mark = slots[slot].mark > 0 ? slots[slot].mark - 1 : 0
        slots.pushHead(slot, to: Self.main)
    }

    /// Adds `key` to the ghost queue, forgetting its oldest keys until it fits.
    private mutating func remember(_ key: Key, size: UInt64) {
        rememberID(ghostID(key), size: size)
    }

    private mutating func rememberID(_ id: UInt64, size: UInt64) {
        guard ghostCapacity > 0, size <= ghostCapacity, ghost.slot(of: id) == nil else { return }
        while ghost.lists[0].bytes &+ size > ghostCapacity {
            ghost.delete(ghost.lists[0].tail)
        }
        ghost.add(id, size: size, to: 0)
    }

    // MARK: - Snapshots

    /// One held entry as a snapshot lists it.
    package struct Entry: Equatable, Sendable {
        package var key: Key
        package var size: UInt64
        package var frequency: UInt8
    }

    /// The queue's state, oldest first in each list, for the store's snapshot of it.
    package var snapshot: (small: [Entry], main: [Entry], ghost: [(id: UInt64, size: UInt64)], hasEvicted: Bool) {
        func entries(_ list: Int) -> [Entry] {
            slots.entries(oldestFirstIn: list).map { Entry(key: $0.key, size: $0.size, frequency: $0.mark) }
        }
        let ghosts = ghost.entries(oldestFirstIn: 0).map { (id: $0.key, size: $0.size) }
        return (entries(Self.small), entries(Self.main), ghosts, hasEvicted)
    }

    /// Appends `entry` (not held) at the head of the main queue, or of the small one.
    package mutating func restore(_ entry: Entry, inMain: Bool) {
        guard !contains(entry.key) else { return }
        slots.add(entry.key, size: entry.size, mark: min(entry.frequency, 3), to: inMain ? Self.main : Self.small)
    }

    /// Appends a key's ghost id at the head of the ghost queue.
    package mutating func restoreGhost(_ id: UInt64, size: UInt64) { rememberID(id, size: size) }

    /// Sets whether an eviction happened (before one, a full small queue sends new entries to
    /// the main one).
    package mutating func restore(hasEvicted: Bool) { self.hasEvicted = hasEvicted }
}
