/// `blobstore help [<subcommand>]` (and `-h`, `--help` anywhere): its description, its value, and
/// its run.
struct HelpCommand: SubcommandValue {
    /// The subcommand to describe; `nil` for the overview of them all.
    var topic: Subcommand?

    static let spec = CommandSpec<HelpCommand>(
        .help,
        abstract: "Show subcommand help information.",
        usesStore: false,
        arguments: [.optional("<subcommand>", help: "The subcommand to describe.", .subcommandName, \.topic)])

    func run(in runner: Runner) throws -> Int32 {
        try runner.output.write(topic.map(HelpText.subcommand) ?? HelpText.root())
        return ExitCode.success
    }
}

extension ValueParser<Subcommand> {
    /// The name of a subcommand; any other word is `Unknown subcommand '…'`, as before one.
    fileprivate static var subcommandName: ValueParser {
        ValueParser(
            completion: .words(Subcommand.allCases.map(\.rawValue)),
            read: { text throws(ValueProblem) in
                guard let subcommand = Subcommand(rawValue: text) else {
                    throw ValueProblem(message: "Unknown subcommand \(ArgumentParser.shown(text))")
                }
                return subcommand
            }, spell: \.rawValue)
    }
}
