/// The subcommands, named as typed on the command line, with the text their help shows.
public enum Subcommand: String, CaseIterable, Equatable, Sendable {
    case put, get, has, rm, ls, stats, demo, help

    /// One line for the `SUBCOMMANDS:` list and the `OVERVIEW:` of the subcommand's help.
    var abstract: String {
        switch self {
        case .put: "Store a file, or standard input, under a key and print its SHA-256 digest."
        case .get: "Write the value stored under a key to standard output or to a file."
        case .has: "Exit 0 if a key is stored, 1 if it is not."
        case .rm: "Remove a key."
        case .ls: "List the stored entries."
        case .stats: "Show the store's counts and sizes."
        case .demo: "Store every file of a directory under two keys and show what deduplication saves."
        case .help: "Show subcommand help information."
        }
    }

    /// Paragraphs shown after the overview, or empty.
    var discussion: String {
        switch self {
        case .put:
            "Identical content is stored once, however many keys refer to it. Use -- before a key "
                + "that starts with '-'."
        case .get:
            "The value is verified against its digest before it is written. A value found damaged "
                + "is removed from the store and the command exits 65."
        case .has:
            "Prints nothing."
        case .rm:
            "The value's blob is deleted by garbage collection once no key refers to it."
        case .ls:
            "Each line is '<digest>  <size>  <key>': the SHA-256 in hex, the size in bytes and the "
                + "key's bytes, separated by two spaces. Use --json for keys that contain newlines."
        case .stats:
            "'saved by dedup' is logical bytes minus stored bytes."
        case .demo:
            "Puts every regular file under <dir> as 'demo:a:<path>' and 'demo:b:<path>', reads "
                + "every value back and compares it with the file, then prints the bytes put, the "
                + "bytes added to disk, the bytes saved by deduplication and the store's statistics. "
                + "Hidden files and directories are skipped. Exits 65 if a value reads back different."
        case .help:
            ""
        }
    }

    /// The usage line, without `blobstore ` in front.
    var usage: String {
        let global = "[--store <dir>] [--durability <mode>]"
        switch self {
        case .put: return "put \(global) <key> [<file>]"
        case .get: return "get \(global) <key> [-o <file>]"
        case .has: return "has \(global) <key>"
        case .rm: return "rm \(global) <key>"
        case .ls: return "ls \(global) [--json]"
        case .stats: return "stats \(global) [--json]"
        case .demo: return "demo \(global) [<dir>]"
        case .help: return "help [<subcommand>]"
        }
    }

    /// The `ARGUMENTS:` section: label and help.
    var arguments: [(label: String, help: String)] {
        switch self {
        case .put:
            [("<key>", "The key, taken as given."), ("<file>", "The file to store. (default: standard input)")]
        case .get, .has, .rm:
            [("<key>", "The key, taken as given.")]
        case .demo:
            [("<dir>", "The directory to store. (default: this package's Sources directory)")]
        case .help:
            [("<subcommand>", "The subcommand to describe.")]
        case .ls, .stats:
            []
        }
    }

    /// The `OPTIONS:` entries specific to this subcommand.
    var options: [(label: String, help: String)] {
        switch self {
        case .get: [("-o, --output <file>", "Write the value to <file> instead of standard output.")]
        case .ls: [("--json", "Print a JSON array of entries.")]
        case .stats: [("--json", "Print the statistics as a JSON object.")]
        default: []
        }
    }
}
