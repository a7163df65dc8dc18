@_spi(BlobStorePackage) import BlobStore
import Foundation
import Synchronization

/// An in-memory least-recently-used cache of values, bounded by their total cost in bytes and,
/// optionally, by their count.
///
/// What is put is kept (``insert(_:for:)``), pushing out the least recently used; a value read
/// from a disk store is kept only when its key was asked for more often lately than the entry it
/// would push out first (``admit(_:for:)``, TinyLFU's admission over a count-min sketch of
/// recent reads), so that reads going round more keys than the tier holds, which would push out
/// every entry before its next use, leave it holding a steady part of them.
///
/// The bound is the contract: Linux sends a process no memory-pressure notification, so the tier
/// never grows past ``Limits/maxBytes`` (plus its bookkeeping) and never shrinks on its own
/// below it. Choose the bound for the memory the process can spare; call ``removeAll()`` to give
/// it all back. An entry whose cost alone exceeds the bound is not kept.
///
/// A ``CachedStore`` puts one in front of a `BlobStore`; raw values, typed objects and HTTP
/// responses share it. It is `Sendable`, and every method is thread-safe.
public final class MemoryTier: Sendable {
    /// The bounds of a memory tier.
    public struct Limits: Sendable, Equatable {
        /// The most bytes the entries may cost together (see ``MemoryEntry/cost(for:)``).
        public var maxBytes: Int
        /// The most entries, or `nil` for no bound on the count.
        public var maxCount: Int?

        /// Bounds of `maxBytes` bytes and, optionally, `maxCount` entries.
        public init(maxBytes: Int, maxCount: Int? = nil) {
            self.maxBytes = maxBytes
            self.maxCount = maxCount
        }
    }

    private struct State {
        var entries = LRUList<MemoryEntry>()
        var cost = 0
        /// How often each key was read lately, hits and misses (``entry(for:)``).
        var frequencies: FrequencySketch
    }

    /// The bounds this tier keeps.
    public let limits: Limits
    private let state: ThreadLock<State>

    /// A tier with bounds `limits`.
    ///
    /// - Throws: `BlobStoreError` with code `invalidArgument` for a negative bound.
    public init(limits: Limits) throws {
        guard limits.maxBytes >= 0, (limits.maxCount ?? 0) >= 0 else {
            throw BlobStoreError(
                .invalidArgument,
                "The memory tier's bounds are \(limits.maxBytes) bytes and \(limits.maxCount ?? 0) entries; "
                    + "neither may be negative.")
        }
        self.limits = limits
        // Keys in use at once: as many entries of 4 KiB as the bytes hold, or the count bound if
        // it is lower.
        let expectedKeys = min(limits.maxCount ?? .max, limits.maxBytes / 4096)
        state = ThreadLock(State(frequencies: FrequencySketch(expectedKeys: expectedKeys)))
    }

    /// A tier of at most `maxBytes` bytes and, optionally, `maxCount` entries.
    public convenience init(maxBytes: Int, maxCount: Int? = nil) throws {
        try self.init(limits: Limits(maxBytes: maxBytes, maxCount: maxCount))
    }

    // MARK: - Reading

    /// The unexpired entry under `key`, which becomes the most recently used; `nil` when there is
    /// none (an expired entry is dropped).
    public func entry(for key: StoreKey) -> MemoryEntry? {
        let now = Date()
        let hash = FrequencySketch.hash(key)
        return withLockReleasing { state, released in
            state.frequencies.increment(hash)
            guard let entry = state.entries.use(key) else { return nil }
            guard !entry.isExpired(at: now) else {
                drop(key, from: &state, releasing: &released)
                return nil
            }
            return entry
        }
    }

    /// Notes that the disk store held the entry under `key` at `instant` (``MemoryEntry/checked``),
    /// if the entry there still has `digest`; changes no recency.
    public func noteChecked(_ key: StoreKey, digest: SHA256Digest, at instant: MonotonicInstant) {
        state.withLock { state in
            state.entries.modify(key) { entry in
                if entry.digest == digest { entry.checked = instant }
            }
        }
    }

    /// About how many times ``entry(for:)`` was asked for `key` lately (0-15), as ``admit(_:for:)``
    /// weighs it.
    func frequency(of key: StoreKey) -> Int {
        let hash = FrequencySketch.hash(key)
        return state.withLock { $0.frequencies.frequency(hash) }
    }

    /// Whether the tier holds an unexpired entry under `key`; changes no recency.
    public func contains(_ key: StoreKey) -> Bool {
        let now = Date()
        return state.withLock { state in
            state.entries.peek(key).map { !$0.isExpired(at: now) } ?? false
        }
    }

    /// The keys held, from the most to the least recently used (expired ones included until they
    /// are read or pushed out).
    public var keys: [StoreKey] {
        state.withLock { $0.entries.keysByRecency }
    }

    /// The total cost of the entries held, in bytes.
    public var totalCost: Int {
        state.withLock { $0.cost }
    }

    /// The number of entries held.
    public var count: Int {
        state.withLock { $0.entries.count }
    }

    // MARK: - Writing

    /// Keeps `entry` under `key` as the most recently used, replacing any entry there, and
    /// evicts the least recently used entries until the tier is within its bounds again.
    ///
    /// - Returns: Whether the entry is kept: one that alone exceeds ``Limits/maxBytes`` (or a tier
    ///   bounded to no entry) is not, and any older entry under `key` is removed.
    @discardableResult
    public func insert(_ entry: MemoryEntry, for key: StoreKey) -> Bool {
        withLockReleasing { insert(entry, for: key, into: &$0, releasing: &$1) }
    }

    /// Keeps `entry`, a value read from a disk store, under `key` as ``insert(_:for:)`` does if it
    /// fits beside what the tier holds, or if ``entry(for:)`` was asked for `key` more often
    /// lately than for each entry it would push out, from the least recently used on (TinyLFU's
    /// admission, over a count-min sketch of recent reads; an expired entry counts as room). An
    /// entry already under `key` is replaced either way.
    ///
    /// An entry read often once and no longer stays the first to go: until the sketch's counts
    /// halve (every ten reads per counter of a row: about 650,000 reads for a tier of 256 MiB),
    /// values read from disk no more often than it was are not kept.
    ///
    /// - Returns: Whether the entry is kept.
    @discardableResult
    public func admit(_ entry: MemoryEntry, for key: StoreKey) -> Bool {
        let cost = fitted(entry, for: key).cost(for: key)
        let hash = FrequencySketch.hash(key)
        let now = Date()
        return withLockReleasing { state, released in
            if state.entries.peek(key) == nil, !admits(cost, hash: hash, at: now, in: state) { return false }
            return insert(entry, for: key, into: &state, releasing: &released)
        }
    }

    /// Whether a new entry of `cost` under the key whose hash is `hash` fits, or was read more
    /// often lately than each entry it would push out (in eviction order, until enough bytes and
    /// one place are freed; an expired entry frees its room whatever its reads).
    private func admits(_ cost: Int, hash: UInt64, at now: Date, in state: State) -> Bool {
        var bytesOver = state.cost + cost - limits.maxBytes
        var countOver = state.entries.count + 1 - (limits.maxCount ?? .max)
        guard bytesOver > 0 || countOver > 0 else { return true }
        let frequency = state.frequencies.frequency(hash)
        var beatsAll = true
        state.entries.forEachFromLeastRecent { victim, held in
            if !held.isExpired(at: now), state.frequencies.frequency(FrequencySketch.hash(victim)) >= frequency {
                beatsAll = false
                return false
            }
            bytesOver -= held.cost(for: victim)
            countOver -= 1
            return bytesOver > 0 || countOver > 0
        }
        return beatsAll && bytesOver <= 0 && countOver <= 0
    }

    /// ``insert(_:for:)`` within the lock; the entries it removes go to `released`.
    private func insert(
        _ entry: MemoryEntry, for key: StoreKey, into state: inout State,
        releasing released: inout [(key: StoreKey, value: MemoryEntry)]
    ) -> Bool {
        let entry = fitted(entry, for: key)
        let cost = entry.cost(for: key)
        drop(key, from: &state, releasing: &released)
        guard cost <= limits.maxBytes, limits.maxCount != 0 else { return false }
        state.entries.set(entry, for: key)
        state.cost += cost
        evictBeyondLimits(&state, releasing: &released)
        return true
    }

    /// Keeps `decoded`, made from the metadata of `found` (the entry under `key` as a read found
    /// it), with that entry while it holds the same value and metadata, so that the next
    /// ``entry(for:)`` returns it in ``MemoryEntry/decoded``; its cost counts from then on (least
    /// recently used entries are evicted for it). Nothing is kept when the entry was replaced or
    /// removed since, or when it would alone exceed ``Limits/maxBytes``. Changes no recency.
    package func attach(_ decoded: any DecodedMetadata, to key: StoreKey, madeFrom found: MemoryEntry) {
        withLockReleasing { state, released in
            guard let entry = state.entries.peek(key), entry.decoded == nil, entry.digest == found.digest,
                entry.metadata.hasSameBytes(as: found.metadata),
                entry.cost(for: key) + decoded.cost <= limits.maxBytes
            else { return }
            state.entries.modify(key) { $0.decoded = decoded }
            state.cost += decoded.cost
            evictBeyondLimits(&state, releasing: &released)
        }
    }

    /// Removes the entry under `key`; returns whether there was one.
    @discardableResult
    public func remove(_ key: StoreKey) -> Bool {
        withLockReleasing { drop(key, from: &$0, releasing: &$1) }
    }

    /// Removes every entry, giving their memory back (after the lock).
    public func removeAll() {
        let removed = state.withLock { state -> LRUList<MemoryEntry> in
            defer {
                state.entries = LRUList()
                state.cost = 0
            }
            return state.entries
        }
        withExtendedLifetime(removed) {}
    }

    /// `entry` as the tier keeps it: without what a reader decoded of its metadata when only that
    /// makes it exceed ``Limits/maxBytes`` (as ``attach(_:to:madeFrom:)`` would not attach it).
    private func fitted(_ entry: MemoryEntry, for key: StoreKey) -> MemoryEntry {
        guard entry.decoded != nil, entry.cost(for: key) > limits.maxBytes else { return entry }
        var entry = entry
        entry.decoded = nil
        return entry
    }

    /// Runs `body` under the lock with a list for the entries it removes, which are given back
    /// after the lock: freed under it, they made the other event loop of the caching proxy
    /// wait, at times for milliseconds, while the freeing thread took the allocator's lock of
    /// the thread that had made them (or waited to be scheduled again).
    private func withLockReleasing<R>(_ body: (inout State, inout [(key: StoreKey, value: MemoryEntry)]) -> R) -> R {
        let (result, released) = state.withLock { state in
            var released: [(key: StoreKey, value: MemoryEntry)] = []
            let result = body(&state, &released)
            return (result, released)
        }
        withExtendedLifetime(released) {}
        return result
    }

    /// Evicts the least recently used entries until the tier is within its limits, into
    /// `released`.
    private func evictBeyondLimits(
        _ state: inout State, releasing released: inout [(key: StoreKey, value: MemoryEntry)]
    ) {
        while state.cost > limits.maxBytes || state.entries.count > (limits.maxCount ?? .max) {
            guard let evicted = state.entries.removeLeastRecent() else { break }
            state.cost -= evicted.value.cost(for: evicted.key)
            released.append(evicted)
        }
    }

    /// Removes the entry under `key` into `released`.
    @discardableResult
    private func drop(
        _ key: StoreKey, from state: inout State, releasing released: inout [(key: StoreKey, value: MemoryEntry)]
    ) -> Bool {
        guard let old = state.entries.remove(key) else { return false }
        state.cost -= old.value.cost(for: key)
        released.append(old)
        return true
    }
}
