/// A command line that cannot be parsed: reported as `Error:` plus the usage, exit code 64.
public struct CommandLineError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `Missing expected argument '<key>'`.
    public var message: String
    /// The subcommand whose usage to show, or `nil` for the top-level usage.
    public var subcommand: Subcommand?

    public init(_ message: String, subcommand: Subcommand?) {
        self.message = message
        self.subcommand = subcommand
    }

    public var description: String { message }
}
