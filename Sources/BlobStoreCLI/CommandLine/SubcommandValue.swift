/// The typed value of one subcommand, as parsed from a command line, and how it runs.
///
/// Each subcommand has one, `Commands/<Name>Command.swift`: a struct of its arguments and
/// options, its ``spec`` (from which the parser, the help and the completions are derived), and
/// ``run(in:)``.
protocol SubcommandValue: CommandValue {
    /// What the subcommand takes and its help.
    static var spec: CommandSpec<Self> { get }

    /// Runs the subcommand.
    ///
    /// - Parameter runner: The store, the streams and the global options.
    /// - Returns: The exit code (``ExitCode``).
    /// - Throws: What the subcommand reports as `Error:`; ``Runner/run(_:)`` maps it to an exit code.
    func run(in runner: Runner) throws -> Int32
}

extension SubcommandValue {
    /// The spec's help, without its value type, for the help text and the completions.
    static var help: CommandHelp { spec.help }

    /// The rest of the command line after the subcommand's name, read by `scanner` with this
    /// subcommand's options and arguments (``ArgumentParser/Scanner/finish(_:)``).
    static func parse(_ scanner: inout ArgumentParser.Scanner) throws(CommandLineError) -> Command {
        try scanner.finish(spec)
    }

    /// Whether `other` is this same value.
    func isEqual(to other: any SubcommandValue) -> Bool {
        (other as? Self) == self
    }
}
