// Command lines for the ArgumentParser harness: from fuzz bytes, and back from an Invocation.
// Fuzz/README.md lists the properties.

/// The command line a harness input stands for: the bytes split at every NUL and newline (empty
/// arguments included), each decoded as UTF-8 with invalid bytes replaced by U+FFFD, as
/// `CommandLine.arguments` decodes them. No bytes is no arguments.
import BlobStore

@testable import BlobStoreCLI

func argumentVector(_ bytes: [UInt8]) -> [String] {
    guard !bytes.isEmpty else { return [] }
    return bytes.split(omittingEmptySubsequences: false) { $0 == 0 || $0 == 10 }
        .map { String(decoding: $0, as: UTF8.self) }
}

/// How ``canonicalArguments(_:style:)`` spells a command line. Both must parse to the same
/// invocation.
enum ArgumentStyle: CaseIterable {
    /// Global options before the subcommand, `--name value` where the value allows it (it does
    /// not start with `-`, or is `-`), `-o` for `--output`, `--` only before an argument that
    /// starts with `-`, `help <subcommand>` for help (`--remote <url> <subcommand> --help` with a
    /// remote).
    case separate
    /// The subcommand first, then every option as `--name=value` (global options last), then
    /// `--` and the arguments; `<subcommand> --help` for help (the global options first with a
    /// remote).
    case inline
}

/// The arguments that ask for `invocation`, using the option spellings of
/// Sources/BlobStoreCLI/ArgumentParser.swift. Durations are written with
/// `QuantityFormat.exactSeconds`, which promises every nanosecond.
func canonicalArguments(_ invocation: Invocation, style: ArgumentStyle) -> [String] {
    var global: [(String, String?)] = []
    if let store = invocation.options.store { global.append(("--store", store)) }
    if let durability = invocation.options.durability { global.append(("--durability", durability.rawValue)) }
    if let remote = invocation.options.remote { global.append(("--remote", remote)) }
    if let remoteCA = invocation.options.remoteCA { global.append(("--remote-ca", remoteCA)) }
    if invocation.options.remoteReadOnly { global.append(("--remote-read-only", nil)) }
    if invocation.options.remoteOnly { global.append(("--remote-only", nil)) }
    if invocation.options.quiet { global.append((style == .separate ? "-q" : "--quiet", nil)) }

    var subcommand: Subcommand?
    var options: [(String, String?)] = []  // name, value (nil: a flag)
    var arguments: [String] = []
    func limit<Value>(_ name: String, _ change: LimitChanges.Change<Value>?, _ text: (Value) -> String) {
        switch change {
        case .set(let value)?: options.append((name, text(value)))
        case .remove?: options.append((name, "none"))
        case nil: break
        }
    }
    func json(_ json: Bool) { if json { options.append(("--json", nil)) } }

    switch invocation.command {
    case .put(let key, let file, let isJSON):
        subcommand = .put
        json(isJSON)
        arguments = [key] + (file.map { [$0] } ?? [])
    case .get(let keys, let output):
        subcommand = .get
        if let output { options.append(("--output", output)) }
        arguments = keys
    case .blob(let digest, let output):
        subcommand = .blob
        if let output { options.append(("--output", output)) }
        arguments = [digest.hex]
    case .fetch(let url, let output, let fetch):
        subcommand = .fetch
        if let output { options.append(("--output", output)) }
        for field in fetch.headers { options.append(("--header", "\(field.name): \(field.value)")) }
        if let lifetime = fetch.minimumDiskLifetime {
            options.append(("--min-disk-lifetime", QuantityFormat.exactSeconds(lifetime)))
        }
        if fetch.allowsHTTPErrors { options.append(("--allow-http-errors", nil)) }
        arguments = [url]
    case .serve(let serve):
        subcommand = .serve
        let defaults = ServeOptions()
        /// `host:port`, bracketed when the host has a colon or starts with `[`.
        func address(_ host: String, _ port: UInt16) -> String {
            host.contains(":") || host.hasPrefix("[") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
        if let origin = serve.origin { options.append(("--origin", origin)) }
        if serve.listenHost != defaults.listenHost || serve.listenPort != defaults.listenPort {
            options.append(("--listen", address(serve.listenHost, serve.listenPort)))
        }
        if serve.forwardProxy { options.append(("--forward-proxy", nil)) }
        if let host = serve.metricsHost { options.append(("--metrics", address(host, serve.metricsPort))) }
        if serve.memoryBytes != defaults.memoryBytes { options.append(("--memory", String(serve.memoryBytes))) }
        if serve.maxObjectBytes != defaults.maxObjectBytes {
            options.append(("--max-object-size", String(serve.maxObjectBytes)))
        }
        if serve.maxConnections != defaults.maxConnections {
            options.append(("--max-connections", String(serve.maxConnections)))
        }
        for (name, value, standard) in [
            ("--min-disk-lifetime", serve.minimumDiskLifetime, defaults.minimumDiskLifetime),
            ("--header-timeout", serve.headerTimeout, defaults.headerTimeout),
            ("--idle-timeout", serve.idleTimeout, defaults.idleTimeout),
            ("--origin-timeout", serve.originTimeout, defaults.originTimeout),
        ] where value != standard {
            options.append((name, QuantityFormat.exactSeconds(value)))
        }
        if let log = serve.accessLog { options.append(("--access-log", log)) }
    case .has(let key):
        subcommand = .has
        arguments = [key]
    case .remove(let keys):
        subcommand = .rm
        arguments = keys
    case .list(let isJSON):
        subcommand = .ls
        json(isJSON)
    case .stats(let isJSON):
        subcommand = .stats
        json(isJSON)
    case .compact(let isJSON):
        subcommand = .compact
        json(isJSON)
    case .clear(let isJSON):
        subcommand = .clear
        json(isJSON)
    case .collectGarbage(let collect):
        subcommand = .gc
        if let capacity = collect.capacity { options.append(("--capacity", "\(capacity)")) }
        if let maxEntries = collect.maxEntries { options.append(("--max-entries", "\(maxEntries)")) }
        if let maxAge = collect.maxAge { options.append(("--max-age", QuantityFormat.exactSeconds(maxAge))) }
        if let grace = collect.grace { options.append(("--grace", QuantityFormat.exactSeconds(grace))) }
        if collect.dryRun { options.append(("--dry-run", nil)) }
        json(collect.json)
    case .verify(let repair, let isJSON):
        subcommand = .verify
        if repair { options.append(("--repair", nil)) }
        json(isJSON)
    case .journal(let isJSON):
        subcommand = .journal
        json(isJSON)
    case .config(let changes, let isJSON):
        subcommand = .config
        limit("--capacity", changes.capacity) { "\($0)" }
        limit("--max-entries", changes.maxEntries) { "\($0)" }
        limit("--max-age", changes.maxAge, QuantityFormat.exactSeconds)
        // `description` is the shortest text that reads back as the same Double; from 0.5 to 1 it
        // has no exponent.
        if let lowWater = changes.lowWater { options.append(("--low-water", lowWater.description)) }
        json(isJSON)
    case .demo(let directory, let isJSON):
        subcommand = .demo
        json(isJSON)
        arguments = directory.map { [$0] } ?? []
    case .help(let topic):
        let topic = topic.map { [$0.rawValue] } ?? []
        // The `help` subcommand refuses `--remote` and the other remote options, and so does a
        // subcommand without a remote tier (`--remote` after `gc` is unknown): with one, the global
        // options come first and help is `--help`.
        let options = invocation.options
        if options.remote != nil || options.remoteCA != nil || options.remoteReadOnly || options.remoteOnly {
            return spell(global, style) + topic + ["--help"]
        }
        switch style {
        case .separate: return spell(global, style) + ["help"] + topic
        case .inline: return topic + ["--help"] + spell(global, style)
        }
    case .remotePing(let isJSON):
        subcommand = .remote
        json(isJSON)
        arguments = ["ping"]
    case .version:
        return spell(global, style) + ["--version"]
    }

    guard let subcommand else { preconditionFailure("every other command has a subcommand") }
    switch style {
    case .separate:
        let dashes = arguments.contains(where: looksLikeAnOption) ? ["--"] : []
        return spell(global, style) + [subcommand.rawValue] + spell(options, style) + dashes + arguments
    case .inline:
        return [subcommand.rawValue] + spell(options, style) + spell(global, style) + ["--"] + arguments
    }
}

/// Whether the parser takes `argument` for an option rather than a value or an argument.
func looksLikeAnOption(_ argument: String) -> Bool {
    argument.hasPrefix("-") && argument != "-"
}

private func spell(_ options: [(String, String?)], _ style: ArgumentStyle) -> [String] {
    options.flatMap { name, value -> [String] in
        guard let value else { return [name] }
        if style == .inline || looksLikeAnOption(value) { return ["\(name)=\(value)"] }
        return [name == "--output" ? "-o" : name, value]
    }
}

/// What kind of result a command line has: an error, or which command. Replacing an argument
/// after `--` must not change it.
func outcomeKind(_ result: Result<Invocation, CommandLineError>) -> String {
    guard case .success(let invocation) = result else { return "error" }
    let description = "\(invocation.command)"
    return String(description.prefix { $0 != "(" })
}
