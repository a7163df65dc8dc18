/// What a read of one value or blob found: the value, nothing, or a stored copy that was damaged.
///
/// A damaged copy (missing, not a regular file, or failing its size or digest check) is never
/// returned: the read repairs it (drops the entries that refer to it and sets the file aside in
/// `quarantine/`, unless the store is read-only) and counts it in
/// ``StoreStats/damagedReads``. The outcome says which of the two misses this read was, which
/// the store-wide counters cannot: other threads and processes add to them.
public enum ReadOutcome<Value> {
    /// The value, verified as the read promises.
    case found(Value)
    /// There is no such key (or it expired), or no such blob.
    case absent
    /// There was an entry, but its stored copy was damaged or missing on disk: a miss.
    case damaged

    /// The value when found; `nil` when absent or damaged.
    public var value: Value? {
        if case .found(let value) = self { return value }
        return nil
    }

    /// The outcome with `transform` applied to a found value.
    func map<Other>(_ transform: (Value) throws -> Other) rethrows -> ReadOutcome<Other> {
        switch self {
        case .found(let value): .found(try transform(value))
        case .absent: .absent
        case .damaged: .damaged
        }
    }
}

extension ReadOutcome: Sendable where Value: Sendable {}
