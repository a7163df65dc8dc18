/// What the help, the usage line and the completion scripts show of one subcommand: the part of
/// a ``CommandSpec`` that does not depend on its value type.
struct CommandHelp: Sendable {
    var name: Subcommand
    /// One line, for the `SUBCOMMANDS:` list and the `OVERVIEW:` of the subcommand's help.
    var abstract: String
    /// Paragraphs shown after the overview, or empty.
    var discussion: String
    /// Whether the usage line shows `[--store <dir>] [--durability <mode>]`: `false` for what
    /// opens no store (`remote ping`, `help`), which still accepts them.
    var usesStore: Bool
    /// Which remote options the subcommand takes.
    var remote: RemoteUse
    var arguments: [ArgumentHelp]
    /// The subcommand's own options, without the global ones.
    var options: [OptionHelp]

    /// The global options the subcommand takes, in the order of ``GlobalOptions/options``.
    var globalOptions: [OptionHelp] {
        GlobalOptions.options.filter { $0.needs <= remote }.map(\.help)
    }

    /// Every option the subcommand takes, as its help lists them: the global ones, its own, and
    /// `-h, --help`.
    var allOptions: [OptionHelp] { globalOptions + options + [ArgumentParser.helpOption] }

    /// The usage line, without `blobstore ` in front.
    var usage: String {
        let store = usesStore ? globalOptions.compactMap(\.usageForm) : []
        return ([name.rawValue] + store + arguments.map(\.usageForm) + options.compactMap(\.usageForm))
            .joined(separator: " ")
    }
}
