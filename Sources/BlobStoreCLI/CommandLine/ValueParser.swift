/// How one option value or argument is read from its text into a `Value`, and written back.
///
/// A parser is total: any text either reads or throws a ``ValueProblem`` saying why. The forms it
/// accepts complete the message after a bad value (`… Use none, batched or always`), and the
/// completion scripts offer what ``completion`` says. ``spell`` is the inverse of ``read``: the
/// text of a value that reads back as the same value (the ArgumentParser fuzz harness checks it).
///
/// The parsers of one kind of value are in `ValueParser+<Kind>.swift`; an option or argument
/// names one (``OptionSpec``, ``ArgumentSpec``), with ``checked(_:)`` for a range of its own.
struct ValueParser<Value: Sendable>: Sendable {
    /// What is accepted, completing "Use …" in a message; `nil` when the value name says it.
    var forms: String?
    /// Shown after the value name in the help and the usage line: `|none`, or nothing.
    var labelSuffix = ""
    /// What a shell offers for the value.
    var completion = Completion.anything
    /// The value `text` stands for.
    var read: @Sendable (_ text: String) throws(ValueProblem) -> Value
    /// A text that reads back as `value`.
    var spell: @Sendable (_ value: Value) -> String

    /// This parser, refusing the values that `problem` finds a reason against (a range).
    ///
    /// - Parameter problem: Why a value read is not accepted, e.g. `it is not from 1 to 100000`,
    ///   or `nil` to accept it.
    /// - Returns: The parser with the check.
    func checked(_ problem: @escaping @Sendable (Value) -> String?) -> ValueParser {
        var parser = self
        let read = self.read
        parser.read = { text throws(ValueProblem) in
            let value = try read(text)
            if let reason = problem(value) { throw ValueProblem(reason) }
            return value
        }
        return parser
    }
}

// MARK: - Text and choices

extension ValueParser<String> {
    /// Any text, taken as given, the empty one too (a key).
    static func text(_ completion: Completion = .anything) -> ValueParser {
        ValueParser(completion: completion, read: { $0 }, spell: { $0 })
    }

    /// A path, taken as given but not empty (`--store`, `-o`).
    static func path(_ completion: Completion) -> ValueParser {
        ValueParser(
            completion: completion,
            read: { text throws(ValueProblem) in
                if text.isEmpty { throw ValueProblem() }
                return text
            }, spell: { $0 })
    }
}

extension ValueParser where Value: RawRepresentable<String> & CaseIterable {
    /// One of the names of `Value`'s cases, in their order (`none, batched or always`).
    static var choice: ValueParser {
        let names = Value.allCases.map(\.rawValue)
        return ValueParser(
            forms: HelpText.series(names, "or"), completion: .words(names),
            read: { text throws(ValueProblem) in
                guard let value = Value(rawValue: text) else { throw ValueProblem() }
                return value
            }, spell: \.rawValue)
    }
}

extension ValueParser {
    /// A limit of `config`: a value as `base` reads it, or `none` to remove the limit.
    static func orNone<Limit>(_ base: ValueParser<Limit>) -> ValueParser where Value == LimitChange<Limit> {
        let read = base.read
        return ValueParser(
            forms: base.forms.map { $0 + ", or none" }, labelSuffix: "|none", completion: base.completion,
            read: { text throws(ValueProblem) in text == "none" ? .remove : .set(try read(text)) },
            spell: { change in
                switch change {
                case .set(let value): base.spell(value)
                case .remove: "none"
                }
            })
    }
}
