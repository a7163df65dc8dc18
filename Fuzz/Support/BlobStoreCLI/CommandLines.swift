// Command lines for the ArgumentParser harness: from fuzz bytes, and back from an Invocation.
// Fuzz/README.md lists the properties.

/// The command line a harness input stands for: the bytes split at every NUL and newline (empty
/// arguments included), each decoded as UTF-8 with invalid bytes replaced by U+FFFD, as
/// `CommandLine.arguments` decodes them. No bytes is no arguments.
import BlobStore

@testable import BlobStoreCLI

func argumentVector(_ bytes: [UInt8]) -> [String] {
    guard !bytes.isEmpty else { return [] }
    return bytes.split(omittingEmptySubsequences: false) { $0 == 0 || $0 == 10 }
        .map { String(decoding: $0, as: UTF8.self) }
}

/// How ``canonicalArguments(_:style:)`` spells a command line. Both must parse to the same
/// invocation.
enum ArgumentStyle: CaseIterable {
    /// Global options before the subcommand, `--name value` where the value allows it (it does
    /// not start with `-`, or is `-`), the first name (`-o` for `--output`, `-q`), `--` only before an argument that
    /// starts with `-`, `help <subcommand>` for help (`--remote <url> <subcommand> --help` with a
    /// remote).
    case separate
    /// The subcommand first, then every option as `--name=value` (global options last), then
    /// `--` and the arguments; `<subcommand> --help` for help (the global options first with a
    /// remote).
    case inline
}

/// The arguments that ask for `invocation`, spelled from the specs the parser reads
/// (`CommandSpec`, `GlobalOptions.options`): each option that does not hold its default, with
/// its parser's `spell` (durations with `QuantityFormat.exactSeconds`, which promises every
/// nanosecond), then the arguments. Nothing here names a subcommand's option: an option added to
/// a spec is spelled too.
func canonicalArguments(_ invocation: Invocation, style: ArgumentStyle) -> [String] {
    let global = spelled(GlobalOptions.options, invocation.options)
    guard case .run(let value) = invocation.command else { return spell(global, style) + ["--version"] }
    if let help = value as? HelpCommand {
        let topic = help.topic.map { [$0.rawValue] } ?? []
        // The `help` subcommand refuses `--remote` and the other remote options, and so does a
        // subcommand without a remote tier (`--remote` after `gc` is unknown): with one, the global
        // options come first and help is `--help`.
        let options = invocation.options
        if options.remote != nil || options.remoteCA != nil || options.remoteReadOnly || options.remoteOnly {
            return spell(global, style) + topic + ["--help"]
        }
        switch style {
        case .separate: return spell(global, style) + ["help"] + topic
        case .inline: return topic + ["--help"] + spell(global, style)
        }
    }
    return canonicalArguments(value, global: global, style: style)
}

/// `value`'s subcommand, options and arguments, with the global options `global`.
private func canonicalArguments<Value: SubcommandValue>(
    _ value: Value, global: [(OptionHelp, String?)], style: ArgumentStyle
) -> [String] {
    let spec = Value.spec
    let options = spelled(spec.options, value)
    let arguments = spec.arguments.flatMap { $0.spell(value) }
    switch style {
    case .separate:
        let dashes = arguments.contains(where: looksLikeAnOption) ? ["--"] : []
        return spell(global, style) + [spec.name.rawValue] + spell(options, style) + dashes + arguments
    case .inline:
        return [spec.name.rawValue] + spell(options, style) + spell(global, style) + ["--"] + arguments
    }
}

/// Each occurrence of an option of `options` that `value` holds: the option and its value
/// (`nil` for a flag).
private func spelled<Value>(_ options: [OptionSpec<Value>], _ value: Value) -> [(OptionHelp, String?)] {
    options.flatMap { option in option.spell(value).map { (option.help, $0) } }
}

/// Whether the parser takes `argument` for an option rather than a value or an argument.
func looksLikeAnOption(_ argument: String) -> Bool {
    argument.hasPrefix("-") && argument != "-"
}

/// `options` as arguments: `separate` uses the first name (`-o`, `-q`) and a value of its own
/// where the value allows it; `inline` the long name and `--name=value`.
private func spell(_ options: [(OptionHelp, String?)], _ style: ArgumentStyle) -> [String] {
    options.flatMap { option, value -> [String] in
        guard let value else { return [style == .separate ? option.names[0] : option.name] }
        if style == .inline || looksLikeAnOption(value) { return ["\(option.name)=\(value)"] }
        return [option.names[0], value]
    }
}

/// What kind of result a command line has: an error, or which command. Replacing an argument
/// after `--` must not change it.
func outcomeKind(_ result: Result<Invocation, CommandLineError>) -> String {
    guard case .success(let invocation) = result else { return "error" }
    return invocation.command.subcommand?.rawValue ?? "version"
}
