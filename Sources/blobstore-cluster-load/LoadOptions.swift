/// `--name value` options and the operands after them.
struct LoadOptions {
    struct UsageError: Error {
        let message: String
    }

    private var values: [String: String] = [:]
    /// The arguments that are not options (the report's files).
    private(set) var operands: [String] = []

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else {
                operands.append(argument)
                continue
            }
            guard let value = rest.popFirst() else { throw UsageError(message: "\(argument) needs a value") }
            values[String(argument.dropFirst(2))] = value
        }
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw UsageError(message: "missing --\(name)") }
        return value
    }

    func integer(_ name: String, default fallback: Int? = nil) throws -> Int {
        guard let text = values[name] else {
            guard let fallback else { throw UsageError(message: "missing --\(name)") }
            return fallback
        }
        guard let value = Int(text), value >= 0 else { throw UsageError(message: "--\(name) \(text) is not a count") }
        return value
    }

    func optionalString(_ name: String) -> String? { values[name] }
}
