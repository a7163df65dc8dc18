/// One argument of a subcommand: what the help shows of it (``ArgumentHelp``), the
/// ``ValueParser`` of its words, and the property of `Value` it sets.
///
/// Made with ``required(_:help:default:_:_:)``, ``optional(_:help:default:_:_:)`` and
/// ``oneOrMore(_:help:_:_:)``, listed in a ``CommandSpec`` in the order they are typed.
struct ArgumentSpec<Value: CommandValue>: Sendable {
    var help: ArgumentHelp
    /// The forms the parser accepts, for the message after a bad word.
    var forms: String?
    /// Reads one word given to the argument into `value`.
    var apply: @Sendable (_ value: inout Value, _ text: String) throws(ValueProblem) -> Void
    /// The words that ``apply`` reads back into what `value` holds for this argument.
    var spell: @Sendable (_ value: Value) -> [String]

    /// An argument that must be given: `path` holds its value.
    static func required<T: Sendable>(
        _ name: String, help text: String, default defaultText: String? = nil, _ parser: ValueParser<T>,
        _ path: WritableKeyPath<Value, T> & Sendable
    ) -> ArgumentSpec {
        let read = parser.read
        return ArgumentSpec(
            help: ArgumentHelp(
                name: name, text: text, defaultText: defaultText, arity: .required, completion: parser.completion),
            forms: parser.forms, apply: { value, text throws(ValueProblem) in value[keyPath: path] = try read(text) },
            spell: { value in [parser.spell(value[keyPath: path])] })
    }

    /// An argument that may be left out: `path` holds its value, `nil` until given.
    static func optional<T: Sendable>(
        _ name: String, help text: String, default defaultText: String? = nil, _ parser: ValueParser<T>,
        _ path: WritableKeyPath<Value, T?> & Sendable
    ) -> ArgumentSpec {
        let read = parser.read
        return ArgumentSpec(
            help: ArgumentHelp(
                name: name, text: text, defaultText: defaultText, arity: .optional, completion: parser.completion),
            forms: parser.forms, apply: { value, text throws(ValueProblem) in value[keyPath: path] = try read(text) },
            spell: { value in value[keyPath: path].map { [parser.spell($0)] } ?? [] })
    }

    /// The last argument, given once or more: `path` holds the values in order.
    static func oneOrMore<T: Sendable>(
        _ name: String, help text: String, _ parser: ValueParser<T>, _ path: WritableKeyPath<Value, [T]> & Sendable
    ) -> ArgumentSpec {
        let read = parser.read
        return ArgumentSpec(
            help: ArgumentHelp(name: name, text: text, arity: .oneOrMore, completion: parser.completion),
            forms: parser.forms,
            apply: { value, text throws(ValueProblem) in value[keyPath: path].append(try read(text)) },
            spell: { value in value[keyPath: path].map(parser.spell) })
    }
}
