/// The subcommands, named as typed on the command line, with the text their help shows.
public enum Subcommand: String, CaseIterable, Equatable, Sendable {
    case put, get, blob, fetch, serve, has, rm, clear, ls, stats, remote, compact, gc, verify, journal, config, demo,
        help

    /// One line for the `SUBCOMMANDS:` list and the `OVERVIEW:` of the subcommand's help.
    var abstract: String {
        switch self {
        case .put: "Store a file, or standard input, under a key and print its SHA-256 digest."
        case .get: "Write the values stored under keys to standard output or to a file."
        case .blob: "Write the content with a SHA-256 digest to standard output or to a file."
        case .fetch: "Fetch a URL through the store's HTTP cache and write the body to standard output or a file."
        case .serve: "Run a caching HTTP proxy on the store, in front of an origin server."
        case .has: "Exit 0 if a key is stored, 1 if it is not."
        case .rm: "Remove keys."
        case .clear: "Remove every entry and delete their blobs."
        case .ls: "List the stored entries."
        case .stats: "Show the store's counts and sizes."
        case .remote: "Check the remote tier: 'remote ping' reaches each of its servers or nodes."
        case .compact: "Rewrite the journal as a manifest of the live entries."
        case .gc: "Evict entries over the store's limits and delete unreferenced blobs and stale files."
        case .verify: "Check every blob against its digest and the store's files against its index."
        case .journal: "Print the journal's records and the manifest's entries, with the damage found."
        case .config: "Show or change the eviction limits recorded in the store."
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
            "Each value is verified against its digest before it is written. With several keys the "
                + "values are written one after another, as cat does; if any key is missing, nothing is "
                + "written and the command exits 1. A value found damaged is removed from the store and "
                + "the command exits 65. With --remote, a local miss asks the remote; its value is "
                + "verified, stored locally and written."
        case .blob:
            "The content is found whichever keys refer to it, even none (a blob that 'blobstore gc' "
                + "has not deleted yet). It is verified against the digest before it is written. A blob "
                + "found damaged is moved to quarantine/ and the command exits 65."
        case .fetch:
            "Follows RFC 9111: a fresh stored response answers without a request; a stale one with "
                + "an ETag or Last-Modified is revalidated with a conditional request, and a 304 keeps the "
                + "stored body; otherwise the response is fetched and stored unless it cannot be "
                + "(no-store, Vary: *, an uncacheable status, a redirect, stale at once without a "
                + "validator). A response fresh for less than 5 minutes (see --min-disk-lifetime) is not "
                + "stored, as this process keeps nothing in memory, and it removes the entry stored for "
                + "the URL. Prints on standard error one line: 'fresh hit', "
                + "'revalidated hit' or 'miss'. A 4xx or 5xx status writes no body and exits 69, unless "
                + "--allow-http-errors; a request that fails exits 74. See docs/http.md."
        case .serve:
            "An HTTP/1.1 reverse proxy for --origin (and, with --forward-proxy, for absolute-form "
                + "requests as HTTP_PROXY= clients send), acting as a shared cache under RFC 9111: fresh "
                + "responses answer from the store, stale ones are revalidated, concurrent misses for one "
                + "URL make one origin request, and every response is streamed to the client while it is "
                + "stored. Every method and end-to-end header passes through; Via, Age and Cache-Status "
                + "(RFC 9211) are added. Requests are held to bounded heads and timeouts (400, 408, 431 "
                + "and no request smuggling). One access log line per request goes to standard error "
                + "(or --access-log). SIGTERM or SIGINT stops accepting and lets the responses in flight "
                + "finish. See docs/http.md, 'The caching proxy'."
        case .has:
            "Prints nothing. With --remote, a key the remote holds counts as stored; nothing is downloaded."
        case .rm:
            "Removes every key given that is stored; exits 1 if any was not. A value's blob is deleted by "
                + "garbage collection once no key refers to it. With --remote, the key's record is removed "
                + "from the remote too (its blob stays, for the remote's eviction)."
        case .clear:
            "Removes every key, then compacts the store, which deletes the blob files and the packs "
                + "of small values at once (the newest pack file stays, holding nothing live, for the "
                + "next values). Prints how many entries were removed. The store's recorded limits "
                + "stay. Creates no store."
        case .ls:
            "Each line is '<digest>  <size>  <key>': the SHA-256 in hex, the size in bytes and the "
                + "key's bytes, separated by two spaces. Use --json for keys that contain newlines."
        case .stats:
            "'saved by dedup' is logical bytes minus stored bytes."
        case .remote:
            "'remote ping' sends one request to each server or node of the remote (--remote or "
                + "$BLOBSTORE_REMOTE) and prints a line for each: its role (server: an HTTP cache or a Redis "
                + "shard; master or replica: a Redis Cluster node, from the topology the seeds report; seed: a "
                + "seed when no topology could be fetched), the time the request took, connecting included, "
                + "and its URL, or 'unreachable' and why. Opens no store. Exits 69 if any could not be reached."
        case .compact:
            "Writes the live entries to a new manifest and starts an empty journal (the next "
                + "generation), replacing the old manifest and journal, so overwritten and removed keys "
                + "no longer take space; the blob files they left without a key are deleted too. Other "
                + "processes switch to the new generation on their next operation. The "
                + "library also compacts by itself after a write once the journal is 4 MiB or more and "
                + "at least half of it describes dead state."
        case .gc:
            "Evicts expired entries, entries idle longer than the maximum age and, while the store is "
                + "over its capacity or entry limit, the least recently accessed entries until it is down "
                + "to the low-water mark (0.9 of each limit unless configured). Then rewrites the packs "
                + "of small values that are mostly dead (and, over the capacity, more of them), "
                + "deletes the packs and blob files no entry refers to and the temporary files of "
                + "interrupted writes, except blob and temporary files younger than the grace period, "
                + "which another process may still be writing, and deletes the files of old "
                + "generations a crash left behind. Without limit options the limits "
                + "recorded in the store apply (see 'blobstore config'); each limit option overrides the "
                + "recorded limit for this run only and records nothing. Progress is shown on standard "
                + "error when it is a terminal."
        case .verify:
            "Rehashes every blob file, checks that every entry's blob exists and that nothing else "
                + "lies in the store, then reports each step, corrupt and missing blobs with the keys "
                + "that refer to them, stray files, and unreferenced blobs (garbage that 'blobstore gc' "
                + "deletes, not damage). Without --repair nothing is changed and the command exits 65 "
                + "when anything is damaged or out of place. With --repair it moves corrupt blobs and "
                + "stray files to quarantine/, drops the entries whose blob is corrupt or missing, and "
                + "exits 0. Progress is shown on standard error when it is a terminal."
        case .journal:
            "Reads the current generation's journal and manifest as they are on disk, without the "
                + "store's lock and changing nothing, and prints each file's header, every journal record "
                + "(its offset, length, type and fields), every manifest entry, and how each file ends: "
                + "whole, in a torn tail (an interrupted write, which opening the store truncates) or at "
                + "damage (what opening the store drops). With --json, one JSON object per line. Exits 65 "
                + "when it finds damage."
        case .config:
            "With no option, shows the limits recorded in the store. Each option changes one limit and "
                + "keeps the others; the new limits are recorded and shown. The recorded limits apply to "
                + "every process that opens the store without limits of its own (an app that passes "
                + "its own limits records those instead), to the eviction after each write and to "
                + "'blobstore gc'. When a write takes the store over a limit, entries are evicted, "
                + "expired and least recently accessed first, until it is under the limit times the "
                + "low-water mark."
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
        case .put: return "put \(global) <key> [<file>] [--json]"
        case .get: return "get \(global) <key> ... [-o <file>]"
        case .blob: return "blob \(global) <digest> [-o <file>]"
        case .fetch:
            return "fetch \(global) <url> [-o <file>] [--header '<name>: <value>']... [--min-disk-lifetime <duration>] "
                + "[--allow-http-errors]"
        case .serve:
            return "serve \(global) --origin <url> [--listen <host:port>] [--forward-proxy] [--metrics <host:port>] "
                + "[--memory <size>] [--max-object-size <size>] [--max-connections <n>] "
                + "[--min-disk-lifetime <duration>] [--header-timeout <duration>] [--idle-timeout <duration>] "
                + "[--origin-timeout <duration>] [--access-log <file>]"
        case .has: return "has \(global) <key>"
        case .rm: return "rm \(global) <key> ..."
        case .clear: return "clear \(global) [--json]"
        case .ls: return "ls \(global) [--json]"
        case .stats: return "stats \(global) [--json]"
        case .remote: return "remote ping [--json]"
        case .compact: return "compact \(global) [--json]"
        case .gc:
            return "gc \(global) [--capacity <size>] [--max-entries <n>] [--max-age <duration>] "
                + "[--grace <duration>] [--dry-run] [--json]"
        case .verify: return "verify \(global) [--repair] [--json]"
        case .journal: return "journal \(global) [--json]"
        case .config:
            return "config \(global) [--capacity <size>|none] [--max-entries <n>|none] "
                + "[--max-age <duration>|none] [--low-water <fraction>] [--json]"
        case .demo: return "demo \(global) [<dir>] [--json]"
        case .help: return "help [<subcommand>]"
        }
    }

    /// The `ARGUMENTS:` section: label and help.
    var arguments: [(label: String, help: String)] {
        switch self {
        case .put:
            [("<key>", "The key, taken as given."), ("<file>", "The file to store. (default: standard input)")]
        case .get:
            [("<key> ...", "The keys, taken as given; their values are written one after another.")]
        case .rm:
            [("<key> ...", "The keys to remove, taken as given.")]
        case .has:
            [("<key>", "The key, taken as given.")]
        case .fetch:
            [("<url>", "The http or https URL to fetch.")]
        case .blob:
            [("<digest>", "The SHA-256 of the content: 64 hexadecimal digits, as put and ls print it.")]
        case .demo:
            [("<dir>", "The directory to store. (default: this package's Sources directory)")]
        case .remote:
            [("<action>", "ping: reach each server or node of the remote.")]
        case .help:
            [("<subcommand>", "The subcommand to describe.")]
        case .clear, .ls, .stats, .compact, .gc, .verify, .journal, .config, .serve:
            []
        }
    }

    /// The `OPTIONS:` entries specific to this subcommand.
    var options: [(label: String, help: String)] {
        switch self {
        case .get: [("-o, --output <file>", "Write the values to <file> instead of standard output.")]
        case .blob: [("-o, --output <file>", "Write the content to <file> instead of standard output.")]
        case .fetch:
            [
                ("-o, --output <file>", "Write the body to <file> instead of standard output."),
                (
                    "--header '<name>: <value>'",
                    "Send this request header; repeat for several. Headers named by a response's Vary "
                        + "select the stored variant."
                ),
                (
                    "--min-disk-lifetime <duration>",
                    "Store responses fresh for at least this long: a number with ms, s, m, h, d or w, e.g. "
                        + "0s to store every cacheable response, revalidating it when stale. (default: 5m)"
                ),
                (
                    "--allow-http-errors",
                    "Write the body of a 4xx or 5xx response and exit 0, as for any other status."
                ),
            ]
        case .serve:
            [
                ("--origin <url>", "The http URL of the origin server requests go to, e.g. http://127.0.0.1:8000."),
                (
                    "--listen <host:port>",
                    "The address to listen on; port 0 picks a free one. (default: 127.0.0.1:8080)"
                ),
                (
                    "--forward-proxy",
                    "Also serve absolute-form requests (GET http://host/path) from the host they name; "
                        + "without --origin, only those."
                ),
                ("--metrics <host:port>", "Serve Prometheus metrics at GET /metrics on this address."),
                (
                    "--memory <size>",
                    "The memory tier for hot responses: bytes, or a number with K, M, G. (default: 64M)"
                ),
                (
                    "--max-object-size <size>",
                    "The largest body stored; larger ones are streamed through unstored. (default: 16M)"
                ),
                (
                    "--max-connections <n>",
                    "The most client connections at once; more are answered 503. (default: 1024)"
                ),
                (
                    "--min-disk-lifetime <duration>",
                    "Keep responses fresh for less than this in memory only. (default: 0s, all on disk)"
                ),
                (
                    "--header-timeout <duration>",
                    "The longest a request head may take to arrive: 408 after. (default: 10s)"
                ),
                ("--idle-timeout <duration>", "How long an idle client connection is kept open. (default: 60s)"),
                (
                    "--origin-timeout <duration>",
                    "The longest wait to connect to the origin and for each read. (default: 60s)"
                ),
                ("--access-log <file>", "Append the access log to <file>. (default: standard error; none with -q)"),
            ]
        case .put: [("--json", "Print the digest, the key and the size as a JSON object.")]
        case .ls: [("--json", "Print a JSON array of entries.")]
        case .stats: [("--json", "Print the statistics as a JSON object.")]
        case .remote: [("--json", "Print the remote and its nodes as a JSON object.")]
        case .compact: [("--json", "Print the report as a JSON object.")]
        case .clear: [("--json", "Print the count as a JSON object.")]
        case .demo: [("--json", "Print the counts and the store's statistics as a JSON object.")]
        case .journal: [("--json", "Print one JSON object per line: headers, records, entries and endings.")]
        case .gc:
            [
                (
                    "--capacity <size>",
                    "The most bytes the blobs may take: bytes, or a number with K, M, G or T (powers "
                        + "of 1024), e.g. 500M or 1.5G. (default: the capacity recorded in the store)"
                ),
                ("--max-entries <n>", "The most entries. (default: the limit recorded in the store)"),
                (
                    "--max-age <duration>",
                    "Evict entries not read or written for longer than this: a number with ms, s, m, "
                        + "h, d or w, e.g. 7d. (default: the limit recorded in the store)"
                ),
                (
                    "--grace <duration>",
                    "Keep unreferenced blobs and temporary files younger than this. (default: 1h)"
                ),
                ("--dry-run", "Report what would be evicted and deleted; change nothing."),
                ("--json", "Print the report as a JSON object."),
            ]
        case .verify:
            [
                (
                    "--repair",
                    "Move corrupt blobs and stray files to quarantine/ and drop the entries whose blob "
                        + "is corrupt or missing."
                ),
                ("--json", "Print the report as a JSON object."),
            ]
        case .config:
            [
                (
                    "--capacity <size>|none",
                    "The most bytes the blobs may take: bytes, or a number with K, M, G or T (powers "
                        + "of 1024), e.g. 500M or 1.5G; none removes the limit."
                ),
                ("--max-entries <n>|none", "The most entries; none removes the limit."),
                (
                    "--max-age <duration>|none",
                    "Evict entries not read or written for longer than this: a number with ms, s, m, "
                        + "h, d or w, e.g. 7d; none removes the limit."
                ),
                (
                    "--low-water <fraction>",
                    "The fraction of each limit an eviction goes down to, from 0.5 to 1. (default: 0.9)"
                ),
                ("--json", "Print the limits as a JSON object."),
            ]
        default: []
        }
    }
}
