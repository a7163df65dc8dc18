/// A size-aware eviction policy's state over keys: what it holds, in which order, with which
/// marks, and the choice of the next entry to evict (``LRUQueue``, ``SieveQueue``,
/// ``S3FIFOQueue``). Sizes are whatever the owner counts against its capacity (the store counts
/// the disk a blob takes). A queue does not enforce a capacity by itself: its owner evicts while
/// it is over.
package protocol EvictionQueue<Key> {
    associatedtype Key: Hashable & Sendable

    /// The entries held.
    var count: Int { get }
    /// The sum of the entries' sizes.
    var bytes: UInt64 { get }
    /// Whether `key` is held.
    func contains(_ key: Key) -> Bool
    /// Whether the policy would admit an entry of `size` bytes at all.
    func canAdmit(size: UInt64) -> Bool
    /// Notes a miss for `key`, before the entries that make room for it are evicted: S3-FIFO
    /// looks it up in its ghost queue then, as libCacheSim does.
    mutating func noteMiss(_ key: Key)
    /// Adds `key` (not held) with `size` bytes; `false` when the policy declines it.
    @discardableResult
    mutating func insert(_ key: Key, size: UInt64) -> Bool
    /// Notes a hit on `key` (held).
    mutating func access(_ key: Key)
    /// Chooses the next entry to evict, updates the policy's state as it passes entries over,
    /// and removes it; `nil` when nothing is held but `sparing`. `sparing` (the entry a put just
    /// wrote) is passed over as an entry read since is, so that a replay of the choice
    /// (``evict(_:)``), which passes over whatever lies before the victim, moves the queue the
    /// same way.
    mutating func evict(sparing: Key?) -> (key: Key, size: UInt64)?
    /// Removes `key` for another reason than eviction (a remove, an expiry).
    mutating func remove(_ key: Key)
    /// Evicts `key`, which another process's copy of this policy chose: the state moves as that
    /// choice moved it (the entries passed over on the way to it are passed over here too), so
    /// that every process that replays the journal keeps the same queue.
    mutating func evict(_ key: Key)
    /// Changes the size of `key` (held): an overwrite with another value.
    mutating func resize(_ key: Key, to size: UInt64)
}

extension EvictionQueue {
    /// ``evict(sparing:)`` sparing nothing: libCacheSim's eviction.
    package mutating func evict() -> (key: Key, size: UInt64)? { evict(sparing: nil) }
}

extension EvictionQueue {
    /// One request of a trace, as libCacheSim's `cache_get_base` runs it: a hit is noted; a miss
    /// of an admissible size evicts until `size` more bytes fit in `capacity`, then inserts.
    /// Calls `evicted` with each key evicted; returns whether the request was a hit.
    package mutating func request(
        _ key: Key, size: UInt64, capacity: UInt64, evicted: (Key, UInt64) -> Void = { _, _ in }
    ) -> Bool {
        if contains(key) {
            access(key)
            return true
        }
        noteMiss(key)
        guard canAdmit(size: size), size <= capacity else { return false }
        while bytes &+ size > capacity, let victim = evict() { evicted(victim.key, victim.size) }
        insert(key, size: size)
        return false
    }
}
