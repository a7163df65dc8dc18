/// A new value for one of the limits `config` records, or `none` to remove it.
enum LimitChange<Value: Equatable & Sendable>: Equatable, Sendable {
    case set(Value)
    case remove

    /// The new limit: the value, or `nil` for none.
    var value: Value? {
        if case .set(let value) = self { return value }
        return nil
    }
}
