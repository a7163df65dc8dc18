import BlobStore

/// A parsed command line: the subcommand to run and the options every subcommand accepts.
public struct Invocation: Equatable, Sendable {
    public var options: GlobalOptions
    public var command: Command

    public init(options: GlobalOptions = GlobalOptions(), command: Command) {
        self.options = options
        self.command = command
    }
}

/// Options accepted before or after the subcommand name.
public struct GlobalOptions: Equatable, Sendable {
    /// `--store <dir>`; `nil` means the default store (see ``StoreLocation``).
    public var store: String?
    /// `--durability <mode>`; `nil` means the library default.
    public var durability: Durability?
    /// `--remote <url>`: the shared remote tier for `put`, `get`, `has`, `rm`, `stats` and
    /// `remote ping`; `nil` means `$BLOBSTORE_REMOTE`, if set.
    public var remote: String?
    /// `--remote-ca <file>`: the CA certificates trusted for an `https://` or `rediss://` remote
    /// instead of the system's; `nil` means `$BLOBSTORE_REMOTE_CA`, if set.
    public var remoteCA: String?
    /// `--remote-read-only`: `put`, `get`, `has` and `rm` read the remote and never write to it.
    public var remoteReadOnly: Bool
    /// `--remote-only`: `put`, `get`, `has` and `rm` keep no local copy and use the remote only.
    public var remoteOnly: Bool
    /// `-q`, `--quiet`: print only results, warnings and errors; no progress, notes or `fetch`'s
    /// outcome line (docs/cli.md, "Options").
    public var quiet: Bool

    public init(
        store: String? = nil, durability: Durability? = nil, remote: String? = nil, remoteCA: String? = nil,
        remoteReadOnly: Bool = false, remoteOnly: Bool = false, quiet: Bool = false
    ) {
        self.store = store
        self.durability = durability
        self.remote = remote
        self.remoteCA = remoteCA
        self.remoteReadOnly = remoteReadOnly
        self.remoteOnly = remoteOnly
        self.quiet = quiet
    }
}

/// What the user asked for, with its arguments. Keys are taken exactly as given.
public enum Command: Equatable, Sendable {
    /// `put <key> [<file>] [--json]`: `file == nil` reads standard input.
    case put(key: String, file: String?, json: Bool = false)
    /// `get <key> ... [-o <file>]`: the values one after another; `output == nil` writes standard
    /// output.
    case get(keys: [String], output: String?)
    /// `blob <digest> [-o <file>]`: `output == nil` writes standard output.
    case blob(SHA256Digest, output: String?)
    /// `fetch <url> [-o <file>] [--header '<name>: <value>']... [--min-disk-lifetime <duration>]`:
    /// `output == nil` writes standard output.
    case fetch(url: String, output: String?, options: FetchOptions)
    /// `serve --origin <url> [<options>]`: runs the caching proxy until SIGTERM or SIGINT.
    case serve(ServeOptions)
    case has(key: String)
    /// `rm <key> ...`.
    case remove(keys: [String])
    case list(json: Bool)
    case stats(json: Bool)
    /// `compact [--json]`.
    case compact(json: Bool)
    /// `clear [--json]`.
    case clear(json: Bool)
    /// `gc [<limits>] [--grace <duration>] [--dry-run] [--json]`.
    case collectGarbage(GarbageCollectionOptions)
    /// `verify [--repair] [--json]`.
    case verify(repair: Bool, json: Bool)
    /// `journal [--json]`.
    case journal(json: Bool)
    /// `config [<changes>] [--json]`: no change shows the recorded limits.
    case config(LimitChanges, json: Bool)
    /// `remote ping [--json]`: one request to every server or node of the remote.
    case remotePing(json: Bool)
    /// `demo [<dir>] [--json]`: `directory == nil` uses the package's `Sources` directory.
    case demo(directory: String?, json: Bool = false)
    /// `help [<subcommand>]`, `-h`, `--help`: `nil` is the overview of every subcommand.
    case help(Subcommand?)
    case version
}
