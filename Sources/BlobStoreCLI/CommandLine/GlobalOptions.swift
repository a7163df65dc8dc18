import BlobStore

/// The options accepted before or after the subcommand name, and their description.
struct GlobalOptions: CommandValue {
    /// `--store <dir>`; `nil` means the default store (see ``StoreLocation``).
    var store: String?
    /// `--durability <mode>`; `nil` means the library default.
    var durability: Durability?
    /// `--remote <url>`: the shared remote tier; `nil` means `$BLOBSTORE_REMOTE`, if set.
    var remote: String?
    /// `--remote-ca <file>`: the CA certificates trusted for an `https://` or `rediss://` remote
    /// instead of the system's; `nil` means `$BLOBSTORE_REMOTE_CA`, if set.
    var remoteCA: String?
    /// `--remote-read-only`: `put`, `get`, `has` and `rm` read the remote and never write to it.
    var remoteReadOnly = false
    /// `--remote-only`: `put`, `get`, `has` and `rm` keep no local copy and use the remote only.
    var remoteOnly = false
    /// `-q`, `--quiet`: print only results, warnings and errors; no progress, notes or `fetch`'s
    /// outcome line (docs/cli.md, "Options").
    var quiet = false

    /// In the order the help lists them. Those with a ``OptionSpec/needs`` above
    /// ``RemoteUse/unused`` are taken only by the subcommands that use the remote tier so; before
    /// the subcommand they are accepted, then refused with the subcommands they apply to.
    static let options: [OptionSpec<GlobalOptions>] = [
        .value(
            "--store", valueName: "<dir>", help: "The store directory.",
            default: "$BLOBSTORE_DIR, else $XDG_CACHE_HOME/blobstore, else $HOME/.cache/blobstore",
            .path(.directory), \.store),
        .value(
            "--durability", valueName: "<mode>", help: "When writes reach the disk: none, batched or always.",
            default: "batched", .choice, \.durability),
        .flag(
            "-q", "--quiet",
            help: "Print only results, warnings and errors: no progress, notes or fetch's outcome line.",
            usage: .hidden, \.quiet),
        .value(
            "--remote", valueName: "<url>",
            help: "A shared remote cache for put, get, has, rm, stats and remote: http://HOST[:PORT][/PATH], "
                + "https://..., redis://[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]...][/DB] (several hosts are "
                + "shards), rediss://... (Redis over TLS), or "
                + "redis+cluster://[[USER:]PASSWORD@]HOST:PORT[,HOST:PORT...] (a Redis Cluster's seed nodes; "
                + "rediss+cluster://... over TLS). A failing remote is skipped with a warning.",
            default: "$BLOBSTORE_REMOTE", usage: .hidden, needs: .remote, .path(.anything), \.remote),
        .value(
            "--remote-ca", valueName: "<file>",
            help: "The CA certificates (PEM) that the certificate of an https://, rediss:// or rediss+cluster:// "
                + "remote must be signed by, instead of the system's. The certificate is always verified.",
            default: "$BLOBSTORE_REMOTE_CA", usage: .hidden, needs: .remote, .path(.file), \.remoteCA),
        .flag(
            "--remote-read-only", help: "Read from the remote, never write to it.", usage: .hidden, needs: .tiered,
            \.remoteReadOnly),
        .flag(
            "--remote-only",
            help: "Keep no local copy: read and write the remote only (the store keeps only its remote counters).",
            usage: .hidden, needs: .tiered, \.remoteOnly),
    ]
}
