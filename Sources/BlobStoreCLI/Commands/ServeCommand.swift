import BlobStore
import BlobStoreCache
import BlobStoreProxy
import Foundation
import Glibc

/// `blobstore serve --origin <url> [<options>]`: its description, its value, and its run below.
struct ServeCommand: SubcommandValue {
    /// `--origin <url>`: the origin of the reverse proxy; `nil` with `--forward-proxy` only.
    var origin: String?
    /// `--listen <host:port>`.
    var listen = SocketAddress(host: "127.0.0.1", port: 8080)
    /// `--forward-proxy`: absolute-form requests go to the host they name.
    var forwardProxy = false
    /// `--metrics <host:port>`: where `GET /metrics` is served; `nil` for nowhere.
    var metrics: SocketAddress?
    /// `--memory <size>`: the memory tier's size.
    var memoryBytes: UInt64 = 256 << 20
    /// `--max-object-size <size>`: the largest body stored.
    var maxObjectBytes: UInt64 = 1 << 30
    /// `--max-connections <n>`.
    var maxConnections = 1024
    /// `--min-disk-lifetime <duration>`: responses fresh for less stay in memory.
    var minimumDiskLifetime: Duration = .zero
    /// `--header-timeout`, `--idle-timeout`, `--origin-timeout`.
    var headerTimeout: Duration = .seconds(10)
    var idleTimeout: Duration = .seconds(60)
    var originTimeout: Duration = .seconds(60)
    /// `--access-log <file>`: `nil` is standard error (nothing with `-q`).
    var accessLog: String?
    /// `--chunk-threshold <size>`: a body at least this large is kept as chunks.
    var chunkThreshold: UInt64?

    static let spec = CommandSpec<ServeCommand>(
        .serve,
        abstract: "Run a caching HTTP proxy on the store, in front of an origin server.",
        discussion: "An HTTP/1.1 reverse proxy for --origin (and, with --forward-proxy, for absolute-form "
            + "requests as HTTP_PROXY= clients send), acting as a shared cache under RFC 9111: fresh "
            + "responses answer from the store, stale ones are revalidated, concurrent misses for one "
            + "URL make one origin request, and every response is streamed to the client while it is "
            + "stored. Every method and end-to-end header passes through; Via, Age and Cache-Status "
            + "(RFC 9211) are added. Requests are held to bounded heads and timeouts (400, 408, 431 "
            + "and no request smuggling). One access log line per request goes to standard error "
            + "(or --access-log). SIGTERM or SIGINT stops accepting and lets the responses in flight "
            + "finish. See docs/http.md, 'The caching proxy'.",
        options: [
            .value(
                "--origin", valueName: "<url>",
                help: "The http URL of the origin server requests go to, e.g. http://127.0.0.1:8000.", usage: .required,
                .origin, \.origin),
            .value(
                "--listen", valueName: "<host:port>", help: "The address to listen on; port 0 picks a free one.",
                default: "127.0.0.1:8080", .socketAddress, \.listen),
            .flag(
                "--forward-proxy",
                help: "Also serve absolute-form requests (GET http://host/path) from the host they name; "
                    + "without --origin, only those.", \.forwardProxy),
            .value(
                "--metrics", valueName: "<host:port>",
                help: "Serve Prometheus metrics at GET /metrics on this address.",
                .socketAddress, \.metrics),
            .value(
                "--memory", valueName: "<size>",
                help: "The memory tier for hot responses: bytes, or a number with K, M, G.", default: "256M", .size,
                \.memoryBytes),
            .value(
                "--max-object-size", valueName: "<size>",
                help: "The largest body stored; larger ones are streamed through unstored.", default: "1G", .size,
                \.maxObjectBytes),
            .value(
                "--max-connections", valueName: "<n>",
                help: "The most client connections at once; more are answered 503.", default: "1024",
                .count.checked { (1...100_000).contains($0) ? nil : "it is not from 1 to 100000" }, \.maxConnections),
            .value(
                "--min-disk-lifetime", valueName: "<duration>",
                help: "Keep responses fresh for less than this in memory only.", default: "0s, all on disk",
                .duration, \.minimumDiskLifetime),
            .value(
                "--header-timeout", valueName: "<duration>",
                help: "The longest a request head may take to arrive: 408 after.", default: "10s",
                .duration.checked(atLeastOneMillisecond), \.headerTimeout),
            .value(
                "--idle-timeout", valueName: "<duration>", help: "How long an idle client connection is kept open.",
                default: "60s", .duration.checked(atLeastOneMillisecond), \.idleTimeout),
            .value(
                "--origin-timeout", valueName: "<duration>",
                help: "The longest wait to connect to the origin and for each read.", default: "60s",
                .duration.checked(atLeastOneMillisecond), \.originTimeout),
            .value(
                "--access-log", valueName: "<file>", help: "Append the access log to <file>.",
                default: "standard error; none with -q", .path(.file), \.accessLog),
            .chunkThreshold("bodies", \.chunkThreshold),
        ],
        check: { serve in
            serve.origin != nil || serve.forwardProxy
                ? nil : "Missing '--origin <url>': give the origin server to forward to, or --forward-proxy"
        })

    /// A timeout's range.
    private static func atLeastOneMillisecond(_ timeout: Duration) -> String? {
        timeout < .milliseconds(1) ? "it must be at least 1ms" : nil
    }

    func run(in runner: Runner) throws -> Int32 { try runner.serve(self) }
}

extension Runner {
    /// `serve --origin <url> [<options>]`: runs the caching proxy on the store until SIGTERM or
    /// SIGINT, then lets the responses in flight finish and closes the store.
    func serve(_ command: ServeCommand) throws -> Int32 {
        var configuration = ProxyConfiguration(origin: command.origin.flatMap(URL.init(string:)))
        configuration.forwardProxy = command.forwardProxy
        configuration.host = command.listen.host
        configuration.port = command.listen.port
        configuration.metricsHost = command.metrics?.host
        configuration.metricsPort = command.metrics?.port ?? 0
        configuration.maxObjectBytes = Int(clamping: command.maxObjectBytes)
        configuration.maxConnections = command.maxConnections
        configuration.headerTimeout = command.headerTimeout
        configuration.idleTimeout = command.idleTimeout
        configuration.originTimeout = command.originTimeout
        let log = try accessLog(command)
        return try withStore(chunkThreshold: command.chunkThreshold) { disk in
            let memory = try MemoryTier(maxBytes: Int(clamping: command.memoryBytes))
            let server = try ProxyServer(
                configuration: configuration,
                // Hot hits skip the disk store's lock for a second (CachedStore's recheck interval).
                store: CachedStore(disk: disk, memory: memory, recheckInterval: .seconds(1)),
                minimumDiskLifetime: command.minimumDiskLifetime.seconds, accessLog: log,
                usage: {
                    guard let stats = try? disk.stats() else { return (0, 0) }
                    return (Int64(clamping: stats.storedBytes), stats.entries)
                })
            server.shutdownOnTermination()
            var listening = "Serving http://\(command.listen.host):\(server.port)/"
            if let origin = command.origin { listening += " for \(origin)" }
            if command.forwardProxy { listening += " (and as a forward proxy)" }
            if let host = command.metrics?.host, let port = server.metricsPort {
                listening += "; metrics at http://\(host):\(port)/metrics"
            }
            note(listening + ". Stop with SIGTERM or Ctrl-C.\n")
            server.run()
            note("Stopped.\n")
            return ExitCode.success
        }
    }

    /// Where the access log goes: `--access-log <file>` (appended; nowhere for the null device),
    /// else standard error unless `--quiet`.
    private func accessLog(_ command: ServeCommand) throws -> FileHandle? {
        guard let path = command.accessLog, path != "-" else {
            return options.quiet ? nil : FileHandle.standardError
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure(
                ExitCode.ioError, "Cannot write the access log '\(path)': \(String(cString: strerror(errno))).")
        }
        // The null device (`/dev/null`, or a link to it) keeps nothing: no line is made for it.
        var status = stat()
        var null = stat()
        if fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFCHR, stat("/dev/null", &null) == 0,
            null.st_mode & S_IFMT == S_IFCHR, status.st_rdev == null.st_rdev
        {
            _ = Glibc.close(fd)
            return nil
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}
