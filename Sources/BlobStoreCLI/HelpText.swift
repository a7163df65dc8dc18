/// The help, usage and error text, laid out the way swift-argument-parser lays it out.
enum HelpText {
    static let overview =
        "A content-addressed blob store: keys map to SHA-256 digests, and each distinct content "
        + "is stored once."
    static let rootUsage = "blobstore [--store <dir>] [--durability <mode>] <subcommand>"

    /// Options every subcommand accepts.
    static let globalOptions: [(label: String, help: String)] = [
        (
            "--store <dir>",
            "The store directory. (default: $BLOBSTORE_DIR, else $XDG_CACHE_HOME/blobstore, "
                + "else $HOME/.cache/blobstore)"
        ),
        ("--durability <mode>", "When writes reach the disk: none, batched or always. (default: batched)"),
        ("-q, --quiet", "Print only results, warnings and errors: no progress, notes or fetch's outcome line."),
    ]
    /// `--remote`, listed by the overview and by the subcommands that use it.
    static let remoteOption = (
        label: "--remote <url>",
        help: "A shared remote cache for put, get, has, rm, stats and remote: http://HOST[:PORT][/PATH], "
            + "https://..., redis://[[USER:]PASSWORD@]HOST[:PORT][,HOST[:PORT]...][/DB] (several hosts are "
            + "shards), rediss://... (Redis over TLS), or redis+cluster://[[USER:]PASSWORD@]HOST:PORT[,HOST:PORT...] "
            + "(a Redis Cluster's seed nodes; rediss+cluster://... over TLS). A failing remote is skipped with a "
            + "warning. "
            + "(default: $BLOBSTORE_REMOTE)"
    )
    /// `--remote-ca`, listed with `--remote`.
    static let remoteCAOption = (
        label: "--remote-ca <file>",
        help: "The CA certificates (PEM) that the certificate of an https://, rediss:// or rediss+cluster:// "
            + "remote must be signed by, "
            + "instead of the system's. The certificate is always verified. (default: $BLOBSTORE_REMOTE_CA)"
    )
    /// The remote modes, listed by the overview and by put, get, has and rm.
    static let remoteModeOptions = [
        (label: "--remote-read-only", help: "Read from the remote, never write to it."),
        (
            label: "--remote-only",
            help: "Keep no local copy: read and write the remote only (the store keeps only its remote "
                + "counters)."
        ),
    ]
    static let helpOption = (label: "-h, --help", help: "Show help information.")

    /// `blobstore --help`.
    static func root() -> String {
        var text = "OVERVIEW: \(overview)\n\n"
        text += "USAGE: \(rootUsage)\n\n"
        text += "OPTIONS:\n"
        text += list(
            globalOptions + [remoteOption, remoteCAOption] + remoteModeOptions
                + [("--version", "Show the version."), helpOption])
        text += "\nSUBCOMMANDS:\n"
        text += list(Subcommand.allCases.map { ($0.rawValue, $0.abstract) })
        text += "\n  See 'blobstore help <subcommand>' for detailed help.\n"
        return text
    }

    /// `blobstore help <subcommand>`, `blobstore <subcommand> --help`.
    static func subcommand(_ subcommand: Subcommand) -> String {
        var text = "OVERVIEW: \(subcommand.abstract)\n\n"
        if !subcommand.discussion.isEmpty {
            text += wrap(subcommand.discussion, indent: 0) + "\n\n"
        }
        text += "USAGE: blobstore \(subcommand.usage)\n\n"
        if !subcommand.arguments.isEmpty {
            text += "ARGUMENTS:\n" + list(subcommand.arguments) + "\n"
        }
        let global = subcommand == .help ? [] : globalOptions
        var remote = ArgumentParser.remoteSubcommands.contains(subcommand) ? [remoteOption, remoteCAOption] : []
        if ArgumentParser.tieredSubcommands.contains(subcommand) { remote += remoteModeOptions }
        text += "OPTIONS:\n" + list(global + remote + subcommand.options + [helpOption])
        return text
    }

    /// A usage error, for standard error.
    static func usageError(_ error: CommandLineError) -> String {
        let usage = error.subcommand.map { "blobstore " + $0.usage } ?? rootUsage
        let helpCommand = error.subcommand.map { "blobstore \($0.rawValue) --help" } ?? "blobstore --help"
        return "Error: \(error.message)\nUsage: \(usage)\n  See '\(helpCommand)' for more information.\n"
    }

    // MARK: - Layout

    /// Labels in a column 26 wide; help text wrapped at 80 columns.
    private static func list(_ items: [(label: String, help: String)]) -> String {
        let column = 26
        var text = ""
        for item in items {
            let label = "  " + item.label
            let help = wrap(item.help, indent: column)
            if label.count < column - 1 {
                text += label + String(repeating: " ", count: column - label.count)
                text += help.dropFirst(column) + "\n"
            } else {
                text += label + "\n" + help + "\n"
            }
        }
        return text
    }

    /// `text` broken into lines of at most 80 columns, each indented by `indent` spaces.
    private static func wrap(_ text: String, indent: Int) -> String {
        let width = 80
        let padding = String(repeating: " ", count: indent)
        var lines: [String] = []
        var line = padding
        for word in text.split(separator: " ") {
            if line.count > indent, line.count + 1 + word.count > width {
                lines.append(line)
                line = padding
            }
            line += (line.count > indent ? " " : "") + word
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
