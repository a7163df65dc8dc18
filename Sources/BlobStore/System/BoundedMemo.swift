/// Values computed lately, by their key, for work that a server repeats at every request on the
/// same input (decoding a stored record, parsing a request target). Bounded: when it holds
/// ``capacity`` values it starts again empty, so that a stream of distinct keys costs at most
/// `capacity` values and no bookkeeping per hit. Thread-safe.
package final class BoundedMemo<Key: Hashable, Value>: @unchecked Sendable {
    /// The most values kept.
    package let capacity: Int
    private let values: ThreadLock<[Key: Value]>

    package init(capacity: Int) {
        self.capacity = capacity
        self.values = ThreadLock([:])
    }

    /// The value for `key`: the one computed before, else `compute(key)`, kept when it is not
    /// `nil` (outside the lock: two threads may compute the same value at once).
    package func value(for key: Key, _ compute: (Key) throws -> Value?) rethrows -> Value? {
        if let known = values.withLock({ $0[key] }) { return known }
        guard let value = try compute(key) else { return nil }
        values.withLock { values in
            if values.count >= capacity { values.removeAll(keepingCapacity: true) }
            values[key] = value
        }
        return value
    }
}
