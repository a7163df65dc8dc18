/// How a subcommand uses the remote tier, which decides the global options it takes: `--remote`
/// and `--remote-ca` from ``remote`` up, `--remote-read-only` and `--remote-only` with
/// ``tiered`` (``OptionSpec/needs``).
enum RemoteUse: Int, Comparable, Sendable {
    /// No remote: the remote options are refused.
    case unused
    /// Reaches the remote but does not read or write entries through it (`stats`, `remote ping`).
    case remote
    /// Reads and writes through the remote (`put`, `get`, `has`, `rm`).
    case tiered

    static func < (lhs: RemoteUse, rhs: RemoteUse) -> Bool { lhs.rawValue < rhs.rawValue }
}
