/// Values computed lately, by their key, for work that a server repeats at every request on the
/// same input (decoding a stored record, parsing a request target). Bounded, in two generations:
/// when the newer holds ``capacity`` values it becomes the older and the one before is dropped,
/// so that at most twice `capacity` values are kept, a value used since the last turn survives
/// it, and a hit costs no bookkeeping beyond its lookup. Thread-safe.
package final class BoundedMemo<Key: Hashable, Value>: @unchecked Sendable {
    /// The most values in one generation.
    package let capacity: Int
    private struct Generations {
        var newer: [Key: Value] = [:]
        var older: [Key: Value] = [:]
    }
    private let values: ThreadLock<Generations>

    package init(capacity: Int) {
        self.capacity = capacity
        self.values = ThreadLock(Generations())
    }

    /// The value for `key`: the one computed before, else `compute(key)`, kept when it is not
    /// `nil` (outside the lock: two threads may compute the same value at once).
    package func value(for key: Key, _ compute: (Key) throws -> Value?) rethrows -> Value? {
        let known = values.withLock { values -> Value? in
            if let value = values.newer[key] { return value }
            guard let value = values.older[key] else { return nil }
            Self.keep(value, for: key, in: &values, capacity: capacity)
            return value
        }
        if let known { return known }
        guard let value = try compute(key) else { return nil }
        remember(value, for: key)
        return value
    }

    /// Keeps `value` as the one for `key`, known without computing it (the input made from it).
    package func remember(_ value: Value, for key: Key) {
        values.withLock { Self.keep(value, for: key, in: &$0, capacity: capacity) }
    }

    private static func keep(_ value: Value, for key: Key, in values: inout Generations, capacity: Int) {
        if values.newer.count >= capacity {
            values.older = values.newer
            values.newer = [:]
            values.newer.reserveCapacity(capacity)
        }
        values.newer[key] = value
    }
}
