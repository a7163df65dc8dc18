/// One option of a subcommand, or a global one: what the help shows of it (``OptionHelp``), the
/// ``ValueParser`` of its value, and the property of `Value` it sets.
///
/// Made with ``flag(_:help:usage:needs:_:)``, ``value(_:valueName:help:default:usage:needs:_:_:)``
/// (for an optional property, or one with a default) and
/// ``repeated(_:valueName:help:_:_:)``; a subcommand lists its options in its ``CommandSpec``,
/// and the global ones are ``GlobalOptions/options``.
struct OptionSpec<Value: CommandValue>: Sendable {
    var help: OptionHelp
    /// For a global option: the least use of the remote tier a subcommand must make to take it.
    var needs = RemoteUse.unused
    /// The forms the value's parser accepts, for the message after a bad one.
    var forms: String?
    /// Reads `text`, the option's value (empty for a flag), into `value`.
    var apply: @Sendable (_ value: inout Value, _ text: String) throws(ValueProblem) -> Void
    /// The texts that ``apply`` reads back into what `value` holds for this option: one per
    /// occurrence, `nil` for a flag's; none when the option has its default.
    var spell: @Sendable (_ value: Value) -> [String?]

    /// Whether the option takes no value.
    var isFlag: Bool { help.valueName == nil }

    /// A flag: given, it sets `path` to `true`.
    static func flag(
        _ names: String..., help text: String, usage: OptionHelp.Usage = .optional, needs: RemoteUse = .unused,
        _ path: WritableKeyPath<Value, Bool> & Sendable
    ) -> OptionSpec {
        OptionSpec(
            help: OptionHelp(names: names, text: text, usage: usage), needs: needs,
            apply: { value, _ in value[keyPath: path] = true },
            spell: { value in value[keyPath: path] ? [nil] : [] })
    }

    /// An option with a value that `path` holds, `nil` until given; the last one given counts.
    static func value<T: Equatable & Sendable>(
        _ names: String..., valueName: String, help text: String, default defaultText: String? = nil,
        usage: OptionHelp.Usage = .optional, needs: RemoteUse = .unused, _ parser: ValueParser<T>,
        _ path: WritableKeyPath<Value, T?> & Sendable
    ) -> OptionSpec {
        let read = parser.read
        return OptionSpec(
            help: OptionHelp(names, valueName, text, defaultText, usage, parser), needs: needs, forms: parser.forms,
            apply: { value, text throws(ValueProblem) in value[keyPath: path] = try read(text) },
            spell: { value in value[keyPath: path].map { [parser.spell($0)] } ?? [] })
    }

    /// `--chunk-threshold <size>` of the commands that write values (`put`, `fetch`, `serve`): values
    /// of at least that size are kept as chunks; `what` names them in the help.
    static func chunkThreshold(_ what: String, _ path: WritableKeyPath<Value, UInt64?> & Sendable) -> OptionSpec {
        .value(
            "--chunk-threshold", valueName: "<size>",
            help: "Keep \(what) of at least this size as content-defined chunks, each distinct chunk stored once: "
                + "values that share most of their bytes share most of their disk, and a range reads only the "
                + "chunks it covers. Bytes, or a number with K, M, G; values up to 128K stay whole.",
            default: "none, every value whole", .size, path)
    }

    /// An option with a value that `path` holds, its default until given (``defaultText`` says
    /// which); the last one given counts.
    static func value<T: Equatable & Sendable>(
        _ names: String..., valueName: String, help text: String, default defaultText: String? = nil,
        usage: OptionHelp.Usage = .optional, needs: RemoteUse = .unused, _ parser: ValueParser<T>,
        _ path: WritableKeyPath<Value, T> & Sendable
    ) -> OptionSpec {
        let read = parser.read
        return OptionSpec(
            help: OptionHelp(names, valueName, text, defaultText, usage, parser), needs: needs, forms: parser.forms,
            apply: { value, text throws(ValueProblem) in value[keyPath: path] = try read(text) },
            spell: { value in
                value[keyPath: path] == Value()[keyPath: path] ? [] : [parser.spell(value[keyPath: path])]
            })
    }

    /// An option given any number of times, each value added to `path` in order.
    static func repeated<T: Equatable & Sendable>(
        _ names: String..., valueName: String, help text: String, _ parser: ValueParser<T>,
        _ path: WritableKeyPath<Value, [T]> & Sendable
    ) -> OptionSpec {
        let read = parser.read
        var help = OptionHelp(names, valueName, text, nil, .optional, parser)
        help.isRepeatable = true
        return OptionSpec(
            help: help, forms: parser.forms,
            apply: { value, text throws(ValueProblem) in value[keyPath: path].append(try read(text)) },
            spell: { value in value[keyPath: path].map(parser.spell) })
    }
}

extension OptionHelp {
    /// The help of an option with a value read by `parser`.
    fileprivate init<T>(
        _ names: [String], _ valueName: String, _ text: String, _ defaultText: String?, _ usage: Usage,
        _ parser: ValueParser<T>
    ) {
        self.init(
            names: names, valueName: valueName, valueSuffix: parser.labelSuffix, text: text, defaultText: defaultText,
            usage: usage, completion: parser.completion)
    }
}
