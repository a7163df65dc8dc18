/// The subcommands, named as typed on the command line, in the order the overview lists them;
/// each is described by its value type (``valueType``), `Commands/<Name>Command.swift`.
enum Subcommand: String, CaseIterable, Equatable, Sendable {
    case put, get, blob, fetch, serve, has, rm, clear, ls, stats, remote, compact, gc, verify, journal, config, demo,
        completions, help

    /// The subcommand's value type, whose `spec` describes it.
    var valueType: any SubcommandValue.Type {
        switch self {
        case .put: PutCommand.self
        case .get: GetCommand.self
        case .blob: BlobCommand.self
        case .fetch: FetchCommand.self
        case .serve: ServeCommand.self
        case .has: HasCommand.self
        case .rm: RemoveCommand.self
        case .clear: ClearCommand.self
        case .ls: ListCommand.self
        case .stats: StatsCommand.self
        case .remote: RemoteCommand.self
        case .compact: CompactCommand.self
        case .gc: CollectGarbageCommand.self
        case .verify: VerifyCommand.self
        case .journal: JournalCommand.self
        case .config: ConfigCommand.self
        case .demo: DemoCommand.self
        case .completions: CompletionsCommand.self
        case .help: HelpCommand.self
        }
    }

    /// What the help and the completions show of the subcommand.
    var help: CommandHelp { valueType.help }
}
