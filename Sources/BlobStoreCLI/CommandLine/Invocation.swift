/// A parsed command line: what to run and the options every subcommand accepts.
struct Invocation: Equatable, Sendable {
    var options = GlobalOptions()
    var command: Command
}
