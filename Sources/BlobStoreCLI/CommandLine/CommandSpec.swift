/// The description of one subcommand, from which its parsing, `--help`, usage line and
/// completions are derived: its name and help text, its arguments and options (each with its
/// parser and the property of `Value` it sets) and a check of the whole value.
///
/// Each subcommand's spec is the `spec` of its value type, in
/// `Commands/<Name>Command.swift` with the value and the code that runs it; adding an option is
/// one line in that list and the property it sets (docs/design.md, "The command line").
struct CommandSpec<Value: SubcommandValue>: Sendable {
    var name: Subcommand
    var abstract: String
    var discussion: String
    /// See ``CommandHelp/usesStore``.
    var usesStore: Bool
    var remote: RemoteUse
    /// In the order they are typed: required ones first, a ``ArgumentSpec/oneOrMore(_:help:_:_:)``
    /// one last.
    var arguments: [ArgumentSpec<Value>]
    var options: [OptionSpec<Value>]
    /// Why a value read from a whole command line is not one to run (`serve` without `--origin`
    /// or `--forward-proxy`), or `nil`.
    var check: @Sendable (Value) -> String?

    init(
        _ name: Subcommand, abstract: String, discussion: String = "", usesStore: Bool = true,
        remote: RemoteUse = .unused, arguments: [ArgumentSpec<Value>] = [], options: [OptionSpec<Value>] = [],
        check: @escaping @Sendable (Value) -> String? = { _ in nil }
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.usesStore = usesStore
        self.remote = remote
        self.arguments = arguments
        self.options = options
        self.check = check
    }

    var help: CommandHelp {
        CommandHelp(
            name: name, abstract: abstract, discussion: discussion, usesStore: usesStore, remote: remote,
            arguments: arguments.map(\.help), options: options.map(\.help))
    }

    /// Reads `words`, the arguments given, into `value`.
    ///
    /// - Throws: ``CommandLineError`` for a missing or an extra argument, or one that does not
    ///   parse.
    func readArguments(_ words: [String], into value: inout Value) throws(CommandLineError) {
        let needed = arguments.filter { $0.help.arity != .optional }.count
        if words.count < needed {
            throw CommandLineError(
                "Missing expected argument '\(arguments[words.count].help.helpLabel)'", subcommand: name)
        }
        let takesTheRest = arguments.last?.help.arity == .oneOrMore
        if !takesTheRest, words.count > arguments.count {
            throw CommandLineError(
                "Unexpected argument \(ArgumentParser.shown(words[arguments.count]))", subcommand: name)
        }
        for (position, word) in words.enumerated() {
            let argument = arguments[min(position, arguments.count - 1)]
            do {
                try argument.apply(&value, word)
            } catch {
                throw CommandLineError(
                    error.message(for: word, label: argument.help.name, forms: argument.forms), subcommand: name)
            }
        }
    }
}
