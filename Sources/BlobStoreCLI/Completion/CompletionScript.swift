/// The shell completion scripts of `blobstore completions`, generated from the same description
/// as the parser and the help: ``Subcommand``'s specs (``CommandHelp``), ``GlobalOptions/options``,
/// and the parser's `-h`, `--help` and `--version`. Each shell's script is in
/// `CompletionScript+<Shell>.swift`.
///
/// What is offered: the subcommands (with their abstracts where the shell shows descriptions);
/// before a subcommand the global options, `--version` and `--help`; after one the options it
/// takes, global ones included; an option's value or an argument as its ``Completion`` says
/// (paths, directories, or words such as the durability modes).
enum CompletionScript {
    /// A shell `blobstore completions` writes a script for.
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    /// The script for `shell`.
    static func script(for shell: Shell) -> String {
        switch shell {
        case .bash: bash()
        case .zsh: zsh()
        case .fish: fish()
        }
    }

    /// The options before a subcommand: every global one, `--version`, `-h, --help`.
    static var rootOptions: [OptionHelp] {
        GlobalOptions.options.map(\.help) + [ArgumentParser.versionOption, ArgumentParser.helpOption]
    }

    /// The start of an option's or a subcommand's help, for the shells that show one: up to the
    /// first `. ` or `: `, without the final period.
    static func summary(_ text: String) -> String {
        var summary = Substring(text)
        for separator in [". ", ": "] {
            if let range = summary.range(of: separator) { summary = summary[..<range.lowerBound] }
        }
        return String(summary.hasSuffix(".") ? summary.dropLast() : summary)
    }
}
