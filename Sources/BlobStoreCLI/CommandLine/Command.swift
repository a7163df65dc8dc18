/// What the user asked for: a subcommand's typed value, or the version.
enum Command: Equatable, Sendable, CustomStringConvertible {
    /// A subcommand with its arguments and options, `help` included (`-h` and `--help` too).
    case run(any SubcommandValue)
    /// `--version`.
    case version

    /// Help on `topic`, or the overview for `nil`: `help [<subcommand>]`, `-h`, `--help`.
    static func help(_ topic: Subcommand?) -> Command {
        .run(HelpCommand(topic: topic))
    }

    /// The subcommand run, or `nil` for the version.
    var subcommand: Subcommand? {
        guard case .run(let value) = self else { return nil }
        return type(of: value).help.name
    }

    var description: String {
        switch self {
        case .run(let value): "\(value)"
        case .version: "version"
        }
    }

    static func == (lhs: Command, rhs: Command) -> Bool {
        switch (lhs, rhs) {
        case (.run(let left), .run(let right)): left.isEqual(to: right)
        case (.version, .version): true
        default: false
        }
    }
}
