import BlobStore
import BlobStoreHTTP
import Foundation

/// Turns the command line (without the program name) into an ``Invocation``. Pure: no I/O.
///
/// The grammar is `blobstore [<options>] <subcommand> [<options>] [<arguments>]`:
/// - `--store <dir>`, `--durability <mode>`, `--remote <url>`, `--remote-ca <file>`,
///   `--remote-read-only`, `--remote-only` and `-q`/`--quiet` may come before or after the
///   subcommand; `--name=value` works too. A value may not start with `-` (except `-` itself) unless given
///   as `--name=value`.
/// - `-h`/`--help` anywhere before `--` asks for help on the subcommand (or the overview); it wins
///   over any other mistake on the line, and ignores a value (`--help=x`).
/// - `--version` is valid only without a subcommand.
/// - `--` ends the options: everything after it is an argument, so keys may start with `-`.
/// - Sizes and durations are read by ``SizeParser`` and ``DurationParser``; a bad one names the
///   option, says why and lists the accepted forms.
public enum ArgumentParser {
    /// Parses `arguments`.
    ///
    /// - Parameter arguments: The command line without the program name.
    /// - Returns: What to run.
    /// - Throws: ``CommandLineError`` for an unknown option or subcommand, a missing or extra
    ///   argument, or a bad option value.
    public static func parse(_ arguments: [String]) throws(CommandLineError) -> Invocation {
        var options = GlobalOptions()
        var subcommand: Subcommand?
        var positionals: [String] = []
        var json = false
        var output: String?
        var headers: [HTTPHeaders.Field] = []
        var minimumDiskLifetime: Duration?
        var allowsHTTPErrors = false
        var repair = false
        var serve = ServeOptions()
        var collect = GarbageCollectionOptions()
        var changes = LimitChanges()
        var helpRequested = false
        var versionRequested = false
        var firstError: CommandLineError?
        var optionsEnded = false
        var index = 0

        func fail(_ message: String) {
            if firstError == nil { firstError = CommandLineError(message, subcommand: subcommand) }
        }

        scanning: while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                if subcommand == nil {
                    guard let named = Subcommand(rawValue: argument) else {
                        // Help wins over any other mistake: `blobstore frob --help` shows the overview.
                        // After `--` there are no options: `blobstore frob -- --help` is a mistake.
                        let laterOptions = optionsEnded ? [] : arguments[index...].prefix { $0 != "--" }
                        if laterOptions.contains(where: asksForHelp) { helpRequested = true }
                        fail("Unknown subcommand '\(argument)'")
                        break scanning
                    }
                    subcommand = named
                } else {
                    positionals.append(argument)
                }
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }

            let (name, inlineValue) = splitOption(argument)
            /// The option's value: inline, or the next argument unless that is an option (`-` alone,
            /// standard input or output, is a value).
            func value(_ label: String) -> String? {
                if let inlineValue { return inlineValue }
                if index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" {
                    index += 1
                    return arguments[index - 1]
                }
                fail("Missing value for '\(label)'")
                return nil
            }
            func flag() -> Bool {
                guard inlineValue == nil else {
                    fail("The option '\(name)' takes no value")
                    return false
                }
                return true
            }
            /// The option's value read by `parse` and checked by `problem`, or `nil` after
            /// reporting why it is invalid and what is accepted. For `config`, `none` removes a
            /// limit unless `limit` is `false`.
            func quantity<Value>(
                _ label: String, forms: String, limit: Bool = true, _ parse: (String) throws(QuantityError) -> Value,
                problem: (Value) -> String? = { _ in nil }
            ) -> LimitChanges.Change<Value>? {
                guard let text = value(label) else { return nil }
                let allowsNone = limit && subcommand == .config
                if allowsNone, text == "none" { return .remove }
                let reason: String
                do {
                    let parsed = try parse(text)
                    guard let invalid = problem(parsed) else { return .set(parsed) }
                    reason = invalid
                } catch {
                    reason = error.description
                }
                let none = allowsNone ? ", or none" : ""
                fail("The value '\(text)' is invalid for '\(label)': \(reason). Use \(forms)\(none)")
                return nil
            }

            switch name {
            case "-h", "--help":
                helpRequested = true
            case "--version":
                if flag() { versionRequested = true }
            case "-q", "--quiet":
                if flag() { options.quiet = true }
            case "--store":
                if let directory = value("--store <dir>") {
                    if directory.isEmpty {
                        fail("The value '' is invalid for '--store <dir>'")
                    } else {
                        options.store = directory
                    }
                }
            case "--durability":
                if let mode = value("--durability <mode>") {
                    if let durability = Durability(rawValue: mode) {
                        options.durability = durability
                    } else {
                        fail("The value '\(mode)' is invalid for '--durability <mode>'. Use none, batched or always")
                    }
                }
            case "--remote" where subcommand.map(remoteSubcommands.contains) ?? true:
                if let url = value("--remote <url>") {
                    if url.isEmpty {
                        fail("The value '' is invalid for '--remote <url>'")
                    } else {
                        options.remote = url
                    }
                }
            case "--remote-ca" where subcommand.map(remoteSubcommands.contains) ?? true:
                if let file = value("--remote-ca <file>") {
                    if file.isEmpty {
                        fail("The value '' is invalid for '--remote-ca <file>'")
                    } else {
                        options.remoteCA = file
                    }
                }
            case "--remote-read-only" where subcommand.map(tieredSubcommands.contains) ?? true:
                if flag() { options.remoteReadOnly = true }
            case "--remote-only" where subcommand.map(tieredSubcommands.contains) ?? true:
                if flag() { options.remoteOnly = true }
            case "--json" where subcommand.map(jsonSubcommands.contains) ?? false:
                if flag() { json = true }
            case "--repair" where subcommand == .verify:
                if flag() { repair = true }
            case "--dry-run" where subcommand == .gc:
                if flag() { collect.dryRun = true }
            case "--grace" where subcommand == .gc:
                if let grace = quantity("--grace <duration>", forms: DurationParser.forms, DurationParser.parse) {
                    collect.grace = grace.value
                }
            case "--capacity" where subcommand == .gc || subcommand == .config:
                let change = quantity("--capacity <size>", forms: SizeParser.forms, SizeParser.parse) {
                    $0 == 0 ? "the capacity must be at least 1 byte" : nil
                }
                if let change {
                    collect.capacity = change.value
                    changes.capacity = change
                }
            case "--max-entries" where subcommand == .gc || subcommand == .config:
                let change = quantity("--max-entries <n>", forms: countForms, count) {
                    $0 == 0 ? "the limit must be at least 1 entry" : nil
                }
                if let change {
                    collect.maxEntries = change.value
                    changes.maxEntries = change
                }
            case "--max-age" where subcommand == .gc || subcommand == .config:
                let change = quantity("--max-age <duration>", forms: DurationParser.forms, DurationParser.parse) {
                    $0 < .milliseconds(1) ? "the maximum age must be at least 1ms" : nil
                }
                if let change {
                    collect.maxAge = change.value
                    changes.maxAge = change
                }
            case "--low-water" where subcommand == .config:
                let change = quantity("--low-water <fraction>", forms: fractionForms, limit: false, fraction) {
                    (0.5...1).contains($0) ? nil : "it is not from 0.5 to 1"
                }
                if let change { changes.lowWater = change.value }
            case "-o" where outputSubcommands.contains(subcommand),
                "--output" where outputSubcommands.contains(subcommand):
                if let file = value("--output <file>") {
                    if file.isEmpty {
                        fail("The value '' is invalid for '--output <file>'")
                    } else {
                        output = file
                    }
                }
            case "--min-disk-lifetime" where subcommand == .fetch || subcommand == .serve:
                let lifetime = quantity(
                    "--min-disk-lifetime <duration>", forms: DurationParser.forms, limit: false, DurationParser.parse)
                if let lifetime = lifetime?.value {
                    minimumDiskLifetime = lifetime
                    serve.minimumDiskLifetime = lifetime
                }
            case "--origin" where subcommand == .serve:
                if let url = value("--origin <url>") {
                    if let problem = originProblem(url) {
                        fail(
                            "The value \(shown(url)) is invalid for '--origin <url>': \(problem). Use a URL such as 'http://127.0.0.1:8000'"
                        )
                    } else {
                        serve.origin = url
                    }
                }
            case "--listen" where subcommand == .serve, "--metrics" where subcommand == .serve:
                let label = "\(name) <host:port>"
                if let text = value(label) {
                    if let (host, port) = hostAndPort(text) {
                        if name == "--listen" {
                            (serve.listenHost, serve.listenPort) = (host, port)
                        } else {
                            (serve.metricsHost, serve.metricsPort) = (host, port)
                        }
                    } else {
                        fail(
                            "The value \(shown(text)) is invalid for '\(label)'. Use an IP address and a port, e.g. 127.0.0.1:8080"
                        )
                    }
                }
            case "--forward-proxy" where subcommand == .serve:
                if flag() { serve.forwardProxy = true }
            case "--memory" where subcommand == .serve, "--max-object-size" where subcommand == .serve:
                let label = "\(name) <size>"
                if let size = quantity(label, forms: SizeParser.forms, limit: false, SizeParser.parse)?.value {
                    if name == "--memory" { serve.memoryBytes = size } else { serve.maxObjectBytes = size }
                }
            case "--max-connections" where subcommand == .serve:
                let change = quantity("--max-connections <n>", forms: countForms, limit: false, count) {
                    $0 == 0 || $0 > 100_000 ? "it is not from 1 to 100000" : nil
                }
                if let limit = change?.value { serve.maxConnections = limit }
            case "--header-timeout" where subcommand == .serve, "--idle-timeout" where subcommand == .serve,
                "--origin-timeout" where subcommand == .serve:
                let label = "\(name) <duration>"
                let timeout = quantity(label, forms: DurationParser.forms, limit: false, DurationParser.parse) {
                    $0 < .milliseconds(1) ? "it must be at least 1ms" : nil
                }
                if let timeout = timeout?.value {
                    switch name {
                    case "--header-timeout": serve.headerTimeout = timeout
                    case "--idle-timeout": serve.idleTimeout = timeout
                    default: serve.originTimeout = timeout
                    }
                }
            case "--access-log" where subcommand == .serve:
                if let file = value("--access-log <file>") {
                    if file.isEmpty {
                        fail("The value '' is invalid for '--access-log <file>'")
                    } else {
                        serve.accessLog = file
                    }
                }
            case "--allow-http-errors" where subcommand == .fetch:
                if flag() { allowsHTTPErrors = true }
            case "--header" where subcommand == .fetch:
                if let header = value("--header '<name>: <value>'") {
                    if let field = headerField(header) {
                        headers.append(field)
                    } else {
                        fail(
                            "The value \(shown(header)) is invalid for '--header': \(headerProblem(header) ?? "?"). "
                                + "Use 'Name: value', e.g. 'Accept-Encoding: gzip'")
                    }
                }
            default:
                fail("Unknown option '\(name)'")
            }
        }

        if helpRequested {
            return Invocation(options: options, command: .help(subcommand))
        }
        if let firstError { throw firstError }
        guard let subcommand else {
            return Invocation(options: options, command: versionRequested ? .version : .help(nil))
        }
        if versionRequested {
            throw CommandLineError("The option '--version' takes no subcommand", subcommand: subcommand)
        }
        for (name, given) in [("--remote", options.remote != nil), ("--remote-ca", options.remoteCA != nil)]
        where given && !remoteSubcommands.contains(subcommand) {
            throw CommandLineError(
                "The option '\(name)' applies to put, get, has, rm, stats and remote only", subcommand: subcommand)
        }
        for (name, given) in [("--remote-read-only", options.remoteReadOnly), ("--remote-only", options.remoteOnly)]
        where given && !tieredSubcommands.contains(subcommand) {
            throw CommandLineError(
                "The option '\(name)' applies to put, get, has and rm only", subcommand: subcommand)
        }
        collect.json = json
        let command = try makeCommand(
            subcommand, positionals, json: json, output: output,
            fetch: FetchOptions(
                headers: headers, minimumDiskLifetime: minimumDiskLifetime, allowsHTTPErrors: allowsHTTPErrors),
            repair: repair, serve: serve,
            collect: collect, changes: changes)
        return Invocation(options: options, command: command)
    }

    /// An option's name and, for `--name=value`, its value.
    ///
    /// The split is at the first `=` scalar, not character: in `--store=\u{301}dir` the `=` and the
    /// combining accent that starts the value form one character.
    private static func splitOption(_ argument: String) -> (name: String, inlineValue: String?) {
        let scalars = argument.unicodeScalars
        guard argument.hasPrefix("--"), let equals = scalars.firstIndex(of: "=") else { return (argument, nil) }
        return (String(scalars[..<equals]), String(scalars[scalars.index(after: equals)...]))
    }

    /// Whether `argument`, as an option, asks for help: `-h`, `--help`, or `--help=` with any
    /// value (the value is ignored, as help wins over any mistake).
    private static func asksForHelp(_ argument: String) -> Bool {
        let name = splitOption(argument).name
        return name == "-h" || name == "--help"
    }

    /// The subcommands that take `-o, --output <file>`.
    private static let outputSubcommands: Set<Subcommand?> = [.get, .blob, .fetch]

    /// The subcommands that use a remote tier (`--remote`, `$BLOBSTORE_REMOTE`, `--remote-ca`).
    static let remoteSubcommands: Set<Subcommand> = [.put, .get, .has, .rm, .stats, .remote]

    /// The subcommands that read and write through the remote tier (`--remote-read-only`,
    /// `--remote-only`).
    static let tieredSubcommands: Set<Subcommand> = [.put, .get, .has, .rm]

    /// The subcommands that take `--json`.
    private static let jsonSubcommands: Set<Subcommand> = [
        .put, .clear, .ls, .stats, .remote, .compact, .gc, .verify, .journal, .config, .demo,
    ]

    /// Checks the number of arguments and builds the command.
    private static func makeCommand(
        _ subcommand: Subcommand, _ positionals: [String], json: Bool, output: String?, fetch: FetchOptions,
        repair: Bool, serve: ServeOptions, collect: GarbageCollectionOptions, changes: LimitChanges
    ) throws(CommandLineError) -> Command {
        let names = subcommand.arguments.map(\.label)
        let required = [.put, .get, .blob, .fetch, .has, .rm, .remote].contains(subcommand) ? 1 : 0
        if positionals.count < required {
            throw CommandLineError("Missing expected argument '\(names[positionals.count])'", subcommand: subcommand)
        }
        // `get` and `rm` take any number of keys after the first.
        if positionals.count > names.count, ![.get, .rm].contains(subcommand) {
            throw CommandLineError("Unexpected argument '\(positionals[names.count])'", subcommand: subcommand)
        }
        let first = positionals.first
        let second = positionals.count > 1 ? positionals[1] : nil
        switch subcommand {
        case .put: return .put(key: positionals[0], file: second, json: json)
        case .get: return .get(keys: positionals, output: output)
        case .blob: return .blob(try digest(positionals[0]), output: output)
        case .fetch: return .fetch(url: try httpURL(positionals[0]), output: output, options: fetch)
        case .serve:
            guard serve.origin != nil || serve.forwardProxy else {
                throw CommandLineError(
                    "Missing '--origin <url>': give the origin server to forward to, or --forward-proxy",
                    subcommand: .serve)
            }
            return .serve(serve)
        case .has: return .has(key: positionals[0])
        case .rm: return .remove(keys: positionals)
        case .ls: return .list(json: json)
        case .stats: return .stats(json: json)
        case .remote:
            guard positionals[0] == "ping" else {
                throw CommandLineError(
                    "The value \(shown(positionals[0])) is invalid for '<action>'. Use ping", subcommand: .remote)
            }
            return .remotePing(json: json)
        case .compact: return .compact(json: json)
        case .clear: return .clear(json: json)
        case .gc: return .collectGarbage(collect)
        case .verify: return .verify(repair: repair, json: json)
        case .journal: return .journal(json: json)
        case .config: return .config(changes, json: json)
        case .demo: return .demo(directory: first, json: json)
        case .help:
            guard let first else { return .help(nil) }
            guard let topic = Subcommand(rawValue: first) else {
                throw CommandLineError("Unknown subcommand '\(first)'", subcommand: .help)
            }
            return .help(topic)
        }
    }

    // MARK: - URLs and headers

    /// Why `text` is not an origin for `serve` (an `http` URL with a host, no query or
    /// fragment), or `nil`.
    static func originProblem(_ text: String) -> String? {
        guard let components = URLComponents(string: text), components.scheme?.lowercased() == "http",
            components.host?.isEmpty == false
        else { return "it is not an http URL with a host" }
        if components.query != nil || components.fragment != nil { return "it has a query or a fragment" }
        return nil
    }

    /// `host:port` or `[v6]:port` split, the port a number from 0 to 65535.
    static func hostAndPort(_ text: String) -> (String, UInt16)? {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        return (host, port)
    }

    /// `fetch <url>`: an absolute `http` or `https` URL with a host.
    static func httpURL(_ text: String) throws(CommandLineError) -> String {
        let components = URLComponents(string: text)
        let scheme = components?.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", components?.host?.isEmpty == false else {
            throw CommandLineError(
                "The value \(shown(text)) is invalid for '<url>': it is not an http or https URL. Use a URL "
                    + "such as 'https://example.com/file'", subcommand: .fetch)
        }
        return text
    }

    /// `header` (`Name: value`) as a request header field, its value without surrounding
    /// whitespace; `nil` when ``headerProblem(_:)`` finds one.
    static func headerField(_ header: String) -> HTTPHeaders.Field? {
        guard headerProblem(header) == nil, let colon = header.firstIndex(of: ":") else { return nil }
        let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return HTTPHeaders.Field(name: String(header[..<colon]), value: value)
    }

    /// Why `header` is not a `Name: value` request header, or `nil` when it is one.
    static func headerProblem(_ header: String) -> String? {
        guard let colon = header.firstIndex(of: ":") else { return "it has no ':'" }
        let name = header[..<colon]
        if name.isEmpty { return "the name is empty" }
        let token = CharacterSet(charactersIn: "!#$%&'*+-.^_`|~0123456789")
            .union(CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        if !name.unicodeScalars.allSatisfy(token.contains) { return "the name \(shown(String(name))) is not a token" }
        if header[colon...].contains(where: { $0 == "\r" || $0 == "\n" }) { return "the value has a line break" }
        return nil
    }

    // MARK: - Digests

    /// `blob <digest>`: exactly 64 hexadecimal digits, lowercase as `put` and `ls` print them, or
    /// uppercase (some tools print digests so; the case does not change the number). Nothing else:
    /// no `sha256:` prefix, no spaces.
    static func digest(_ text: String) throws(CommandLineError) -> SHA256Digest {
        let reason: String
        if let digest = SHA256Digest(hex: text) {
            return digest
        } else if text.isEmpty {
            reason = "it is empty"
        } else if let bad = text.unicodeScalars.first(where: { !$0.properties.isASCIIHexDigit }) {
            reason = "\(shown(String(bad))) is not a hexadecimal digit"
        } else {
            reason = "it has \(text.unicodeScalars.count) digits, not 64"
        }
        throw CommandLineError(
            "The value \(shown(text)) is invalid for '<digest>': \(reason). Use the 64 hexadecimal digits of a "
                + "SHA-256, as 'blobstore put' and 'blobstore ls' print them",
            subcommand: .blob)
    }

    /// `text` in single quotes for an error message, with control characters escaped and anything
    /// past 80 characters cut, so that a hostile argument cannot rewrite the terminal or flood it.
    static func shown(_ text: String) -> String {
        var escaped = ""
        for (index, scalar) in text.unicodeScalars.enumerated() {
            if index == 80 {
                escaped += "…"
                break
            }
            let isControl = scalar.value < 0x20 || (0x7f...0x9f).contains(scalar.value)
            escaped += isControl ? "\\u{" + String(scalar.value, radix: 16) + "}" : String(scalar)
        }
        return "'" + escaped + "'"
    }

    // MARK: - Counts and fractions

    static let countForms = "a whole number, e.g. 10000"
    static let fractionForms = "a decimal number from 0.5 to 1, e.g. 0.9"

    /// `--max-entries`: digits only, at most `Int.max`.
    static func count(_ text: String) throws(QuantityError) -> Int {
        let scanned = try DecimalNumber.split(text)
        guard scanned.unit.isEmpty else { throw .unknownUnit(String(scanned.unit)) }
        guard scanned.number.fractionDigits.isEmpty else { throw .notWhole }
        guard let count = scanned.number.scaled(by: 1), count <= UInt64(Int.max) else {
            throw .tooLarge(maximum: "\(Int.max)")
        }
        return Int(count)
    }

    /// `--low-water`: a plain decimal number such as `0.9`; the range is checked by the caller.
    static func fraction(_ text: String) throws(QuantityError) -> Double {
        let scanned = try DecimalNumber.split(text)
        guard scanned.unit.isEmpty else { throw .unknownUnit(String(scanned.unit)) }
        // Only digits and one point are left: Double parses them, never as hex, inf or nan.
        return Double(text) ?? .infinity
    }
}
