/// Values computed lately, by their key, for work that a server repeats at every request on the
/// same input (decoding a stored record, parsing a request target). Bounded, in two generations:
/// when the newer holds ``capacity`` values it becomes the older and the one before is dropped,
/// so that at most twice `capacity` values are kept, a value used since the last turn survives
/// it, and a hit costs no bookkeeping beyond its lookup. Thread-safe. Inlinable, so that each
/// module that uses one specializes it for its keys and values (unspecialized, a lookup looked up
/// the dictionary's generic metadata at run time); public under the `BlobStorePackage` SPI for
/// that, as ``ThreadLock`` is.
@_spi(BlobStorePackage) public final class BoundedMemo<Key: Hashable, Value>: @unchecked Sendable {
    /// The most values in one generation.
    @_spi(BlobStorePackage) public let capacity: Int
    @usableFromInline struct Generations {
        @usableFromInline var newer: [Key: Value] = [:]
        @usableFromInline var older: [Key: Value] = [:]
        @usableFromInline init() {}
    }
    @usableFromInline let values: ThreadLock<Generations>

    @_spi(BlobStorePackage) public init(capacity: Int) {
        self.capacity = capacity
        self.values = ThreadLock(Generations())
    }

    /// The value for `key`: the one computed before, else `compute(key)`, kept when it is not
    /// `nil` (outside the lock: two threads may compute the same value at once).
    @inlinable
    @_spi(BlobStorePackage) public func value(for key: Key, _ compute: (Key) throws -> Value?) rethrows -> Value? {
        if let known = known(key) { return known }
        guard let value = try compute(key) else { return nil }
        remember(value, for: key)
        return value
    }

    /// The value kept for `key`, if there is one.
    @inlinable
    @_spi(BlobStorePackage) public func known(_ key: Key) -> Value? {
        let (value, dropped) = values.withLock { values -> (Value?, [Key: Value]) in
            if let value = values.newer[key] { return (value, [:]) }
            guard let value = values.older[key] else { return (nil, [:]) }
            return (value, Self.keep(value, for: key, in: &values, capacity: capacity))
        }
        withExtendedLifetime(dropped) {}
        return value
    }

    /// Keeps `value` as the one for `key`, known without computing it (the input made from it).
    @inlinable
    @_spi(BlobStorePackage) public func remember(_ value: Value, for key: Key) {
        let dropped = values.withLock { Self.keep(value, for: key, in: &$0, capacity: capacity) }
        withExtendedLifetime(dropped) {}
    }

    /// Keeps `value` in the newer generation, turning the generations first when it is full;
    /// returns the generation dropped then (else an empty one), for the caller to free once it has
    /// let go of the lock: freeing thousands of values is the slow part of a turn, and the lock's
    /// other users need not wait for it.
    @inlinable
    static func keep(_ value: Value, for key: Key, in values: inout Generations, capacity: Int) -> [Key: Value] {
        var dropped: [Key: Value] = [:]
        if values.newer.count >= capacity {
            swap(&dropped, &values.older)
            swap(&values.older, &values.newer)
            values.newer.reserveCapacity(capacity)
        }
        values.newer[key] = value
        return dropped
    }
}
