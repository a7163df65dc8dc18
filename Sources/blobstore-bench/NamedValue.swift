/// The case of `Value` named `name`, as an option gives it (`--durability batched`,
/// `--policy sieve`).
///
/// - Throws: ``BenchError`` naming the option and every accepted name.
func namedValue<Value: RawRepresentable & CaseIterable>(_ name: String, for option: String) throws -> Value
where Value.RawValue == String {
    guard let value = Value(rawValue: name) else {
        let names = Value.allCases.map(\.rawValue).joined(separator: ", ")
        throw BenchError("\(option) must be one of \(names), not '\(name)'")
    }
    return value
}
