/// Turns the command line (without the program name) into an ``Invocation``. Pure: no I/O.
///
/// The grammar is `blobstore [<options>] <subcommand> [<options>] [<arguments>]`:
/// - `--store <dir>`, `--durability <mode>`, `--remote <url>`, `--remote-ca <file>`,
///   `--remote-read-only`, `--remote-only` and `-q`/`--quiet` may come before or after the
///   subcommand; `--name=value` works too. A value may not start with `-` (except `-` itself) unless given
///   as `--name=value`.
/// - `-h`/`--help` anywhere before `--` asks for help on the subcommand (or the overview); it wins
///   over any other mistake on the line, and ignores a value (`--help=x`).
/// - `--version` is valid only without a subcommand.
/// - `--` ends the options: everything after it is an argument, so keys may start with `-`.
/// - Sizes and durations are read by ``SizeParser`` and ``DurationParser``; a bad one names the
///   option, says why and lists the accepted forms.
///
/// What each subcommand takes comes from its ``CommandSpec``, the global options from
/// ``GlobalOptions/options``: this file knows no option by name but `-h`, `--help` and
/// `--version`. The first mistake on the line is the one reported.
enum ArgumentParser {
    /// `-h, --help`, taken everywhere before `--`.
    static let helpOption = OptionHelp(names: ["-h", "--help"], text: "Show help information.", usage: .hidden)
    /// `--version`, taken only without a subcommand.
    static let versionOption = OptionHelp(names: ["--version"], text: "Show the version.", usage: .hidden)

    /// Parses `arguments`.
    ///
    /// - Parameter arguments: The command line without the program name.
    /// - Returns: What to run.
    /// - Throws: ``CommandLineError`` for an unknown option or subcommand, a missing or extra
    ///   argument, or a bad option value.
    static func parse(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        var scanner = Scanner(arguments: arguments)
        var nothing = BeforeTheSubcommand()
        if let word = scanner.nextArgument([], into: &nothing, remote: nil) {
            if let subcommand = Subcommand(rawValue: word) {
                scanner.subcommand = subcommand
                let command = try subcommand.valueType.parse(&scanner)
                return Invocation(options: scanner.options, command: command)
            }
            // Help wins over any other mistake: `blobstore frob --help` shows the overview.
            // After `--` there are no options: `blobstore frob -- --help` is a mistake.
            let laterOptions = scanner.optionsEnded ? [] : arguments[scanner.index...].prefix { $0 != "--" }
            if laterOptions.contains(where: asksForHelp) { scanner.helpRequested = true }
            scanner.fail("Unknown subcommand \(shown(word))")
        }
        if scanner.helpRequested { return Invocation(options: scanner.options, command: .help(nil)) }
        if let firstError = scanner.firstError { throw firstError }
        return Invocation(options: scanner.options, command: scanner.versionRequested ? .version : .help(nil))
    }

    /// What is read before the subcommand's name: global options only, which the scanner keeps.
    private struct BeforeTheSubcommand: CommandValue {}

    // MARK: - Scanning

    /// The state of one parse: where it is on the line, the global options so far, and the first
    /// mistake.
    struct Scanner {
        let arguments: [String]
        /// The next argument to read.
        var index = 0
        var options = GlobalOptions()
        /// The subcommand, once its name is read.
        var subcommand: Subcommand?
        var helpRequested = false
        var versionRequested = false
        /// After `--`.
        var optionsEnded = false
        var firstError: CommandLineError?

        /// Notes `message` unless a mistake is noted already.
        mutating func fail(_ message: String) {
            if firstError == nil { firstError = CommandLineError(message, subcommand: subcommand) }
        }

        /// Reads options (`own`, into `value`; the global ones the subcommand takes, into
        /// ``options``; help and version) up to the next argument, and returns it; `nil` at the
        /// end of the line.
        ///
        /// - Parameter remote: The subcommand's use of the remote tier, which decides the global
        ///   options it takes; `nil` before the subcommand, where every global option is taken.
        mutating func nextArgument<Value>(
            _ own: [OptionSpec<Value>], into value: inout Value, remote: RemoteUse?
        ) -> String? {
            while index < arguments.count {
                let argument = arguments[index]
                index += 1
                if optionsEnded || argument == "-" || !argument.hasPrefix("-") { return argument }
                if argument == "--" {
                    optionsEnded = true
                    continue
                }
                let (name, inlineValue) = splitOption(argument)
                if helpOption.names.contains(name) {
                    helpRequested = true
                } else if versionOption.names.contains(name) {
                    if inlineValue == nil {
                        versionRequested = true
                    } else {
                        fail("The option '\(name)' takes no value")
                    }
                } else if let option = own.first(where: { $0.help.names.contains(name) }) {
                    read(option, inlineValue, into: &value)
                } else if let option = GlobalOptions.options.first(where: {
                    $0.help.names.contains(name) && $0.needs <= remote ?? .tiered
                }) {
                    var options = self.options
                    read(option, inlineValue, into: &options)
                    self.options = options
                } else {
                    fail("Unknown option '\(name)'")
                }
            }
            return nil
        }

        /// Reads `option`'s value, given inline or as the next argument, into `value`.
        private mutating func read<Value>(_ option: OptionSpec<Value>, _ inlineValue: String?, into value: inout Value)
        {
            let label = option.help.label
            guard !option.isFlag else {
                if inlineValue != nil { return fail("The option '\(option.help.name)' takes no value") }
                try? option.apply(&value, "")  // a flag only sets its property: nothing to throw
                return
            }
            /// The value: inline, or the next argument unless that is an option (`-` alone,
            /// standard input or output, is a value).
            let text: String
            if let inlineValue {
                text = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" {
                text = arguments[index]
                index += 1
            } else {
                return fail("Missing value for '\(label)'")
            }
            do {
                try option.apply(&value, text)
            } catch {
                fail(error.message(for: text, label: label, forms: option.forms))
            }
        }

        /// Reads the rest of the line as `spec`'s subcommand and checks it.
        ///
        /// - Returns: The subcommand's value, or help on it when the line asks for help.
        /// - Throws: ``CommandLineError``: the first mistake on the line, `--version`, a global
        ///   option the subcommand does not take, or what ``CommandSpec/readArguments(_:into:)``
        ///   and ``CommandSpec/check`` find.
        mutating func finish<Value: SubcommandValue>(_ spec: CommandSpec<Value>) throws(CommandLineError) -> Command {
            var value = Value()
            var words: [String] = []
            while let word = nextArgument(spec.options, into: &value, remote: spec.remote) { words.append(word) }
            if helpRequested { return .help(spec.name) }
            if let firstError { throw firstError }
            if versionRequested {
                throw CommandLineError("The option '--version' takes no subcommand", subcommand: spec.name)
            }
            for option in GlobalOptions.options where option.needs > spec.remote && !option.spell(options).isEmpty {
                let takers = Subcommand.allCases.filter { $0.help.remote >= option.needs }.map(\.rawValue)
                throw CommandLineError(
                    "The option '\(option.help.name)' applies to \(HelpText.series(takers, "and")) only",
                    subcommand: spec.name)
            }
            try spec.readArguments(words, into: &value)
            if let problem = spec.check(value) { throw CommandLineError(problem, subcommand: spec.name) }
            return .run(value)
        }
    }

    // MARK: - Options

    /// An option's name and, for `--name=value`, its value.
    ///
    /// The split is at the first `=` scalar, not character: in `--store=\u{301}dir` the `=` and the
    /// combining accent that starts the value form one character.
    private static func splitOption(_ argument: String) -> (name: String, inlineValue: String?) {
        let scalars = argument.unicodeScalars
        guard argument.hasPrefix("--"), let equals = scalars.firstIndex(of: "=") else { return (argument, nil) }
        return (String(scalars[..<equals]), String(scalars[scalars.index(after: equals)...]))
    }

    /// Whether `argument`, as an option, asks for help: `-h`, `--help`, or `--help=` with any
    /// value (the value is ignored, as help wins over any mistake).
    private static func asksForHelp(_ argument: String) -> Bool {
        helpOption.names.contains(splitOption(argument).name)
    }

    // MARK: - Messages

    /// `text` in single quotes for an error message, with control characters escaped and anything
    /// past 80 characters cut, so that a hostile argument cannot rewrite the terminal or flood it.
    static func shown(_ text: String) -> String {
        var escaped = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 80 {
                escaped += "…"
                break
            }
            let isControl = scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
            escaped += isControl ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
        return "'" + escaped + "'"
    }
}
