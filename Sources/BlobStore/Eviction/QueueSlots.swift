/// Entries in doubly linked lists threaded through one array, as libCacheSim keeps its queues:
/// inserting, unlinking and moving an entry are O(1), and no entry allocates once the array has
/// grown (a freed slot is reused). The eviction queues (``LRUQueue``, ``SieveQueue``,
/// ``S3FIFOQueue``) keep their lists here; a list's head is its newest entry, its tail its oldest.
struct QueueSlots<Key: Hashable & Sendable>: Sendable {
    /// One entry.
    struct Slot: Sendable {
        var key: Key
        var size: UInt64
        /// The next entry toward the head (inserted later), or -1.
        var newer: Int32 = -1
        /// The next entry toward the tail (inserted earlier), or -1.
        var older: Int32 = -1
        /// The policy's bits for the entry: SIEVE's visited bit, S3-FIFO's frequency.
        var mark: UInt8 = 0
        /// Which of the policy's lists holds it.
        var list: UInt8 = 0
    }

    /// One list's ends and totals.
    struct List: Sendable {
        var head: Int32 = -1
        var tail: Int32 = -1
        var count = 0
        var bytes: UInt64 = 0
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private var positions: [Key: Int32] = [:]
    private(set) var lists: [List]

    /// Storage for `lists` lists, all empty.
    init(lists: Int) {
        self.lists = Array(repeating: List(), count: lists)
    }

    /// The entries in all lists.
    var count: Int { positions.count }

    /// The slot holding `key`, or `nil`.
    func slot(of key: Key) -> Int32? { positions[key] }

    subscript(slot: Int32) -> Slot {
        get { slots[Int(slot)] }
        _modify { yield &slots[Int(slot)] }
    }

    /// Adds `key` at the head of `list`; the key must not be held yet.
    @discardableResult
    mutating func add(_ key: Key, size: UInt64, mark: UInt8 = 0, to list: Int) -> Int32 {
        let slot: Int32
        let new = Slot(key: key, size: size, mark: mark, list: UInt8(list))
        if let reused = freeSlots.popLast() {
            slot = reused
            slots[Int(slot)] = new
        } else {
            precondition(slots.count < Int32.max, "an eviction queue holds at most 2^31 - 1 entries")
            slot = Int32(slots.count)
            slots.append(new)
        }
        positions[key] = slot
        pushHead(slot, to: list)
        return slot
    }

    /// Takes `slot` out of its list (it stays allocated: ``pushHead(_:to:)`` puts it back).
    mutating func unlink(_ slot: Int32) {
        let entry = slots[Int(slot)]
        let list = Int(entry.list)
        if entry.newer >= 0 { slots[Int(entry.newer)].older = entry.older } else { lists[list].head = entry.older }
        if entry.older >= 0 { slots[Int(entry.older)].newer = entry.newer } else { lists[list].tail = entry.newer }
        lists[list].count -= 1
        lists[list].bytes &-= entry.size
        slots[Int(slot)].newer = -1
        slots[Int(slot)].older = -1
    }

    /// Puts an unlinked `slot` at the head of `list`.
    mutating func pushHead(_ slot: Int32, to list: Int) {
        let head = lists[list].head
        slots[Int(slot)].list = UInt8(list)
        slots[Int(slot)].older = head
        slots[Int(slot)].newer = -1
        if head >= 0 { slots[Int(head)].newer = slot } else { lists[list].tail = slot }
        lists[list].head = slot
        lists[list].count += 1
        lists[list].bytes &+= slots[Int(slot)].size
    }

    /// Changes the size of the entry in `slot`, keeping its list's total.
    mutating func resize(_ slot: Int32, to size: UInt64) {
        let list = Int(slots[Int(slot)].list)
        lists[list].bytes = lists[list].bytes &- slots[Int(slot)].size &+ size
        slots[Int(slot)].size = size
    }

    /// Unlinks `slot` and forgets its key.
    mutating func delete(_ slot: Int32) {
        unlink(slot)
        positions[slots[Int(slot)].key] = nil
        freeSlots.append(slot)
    }

    /// The keys of `list` from its tail (oldest) to its head.
    func keys(oldestFirstIn list: Int) -> [Key] { entries(oldestFirstIn: list).map(\.key) }

    /// The entries of `list` from its tail (oldest) to its head.
    func entries(oldestFirstIn list: Int) -> [Slot] {
        var entries: [Slot] = []
        entries.reserveCapacity(lists[list].count)
        var slot = lists[list].tail
        while slot >= 0 {
            entries.append(slots[Int(slot)])
            slot = slots[Int(slot)].newer
        }
        return entries
    }
}
