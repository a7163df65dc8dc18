/// A command line that cannot be parsed: reported as `Error:` plus the usage, exit code 64.
struct CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `Missing expected argument '<key>'`.
    var message: String
    /// The subcommand whose usage to show, or `nil` for the top-level usage.
    var subcommand: Subcommand?

    init(_ message: String, subcommand: Subcommand?) {
        self.message = message
        self.subcommand = subcommand
    }

    var description: String { message }
}
