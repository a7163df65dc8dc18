/// A value the parser fills in from its defaults, option by option: a subcommand's
/// (``SubcommandValue``), or the ``GlobalOptions``.
protocol CommandValue: Equatable, Sendable {
    /// The value before anything is read: every option at its default.
    init()
}
