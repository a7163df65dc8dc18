import BlobStore
import BlobStoreCache
import BlobStoreProxy
import Foundation
import Glibc

extension Runner {
    /// `serve --origin <url> [<options>]`: runs the caching proxy on the store until SIGTERM or
    /// SIGINT, then lets the responses in flight finish and closes the store.
    func serve(_ options: ServeOptions) throws -> Int32 {
        var configuration = ProxyConfiguration(origin: options.origin.flatMap(URL.init(string:)))
        configuration.forwardProxy = options.forwardProxy
        configuration.host = options.listenHost
        configuration.port = options.listenPort
        configuration.metricsHost = options.metricsHost
        configuration.metricsPort = options.metricsPort
        configuration.maxObjectBytes = Int(clamping: options.maxObjectBytes)
        configuration.maxConnections = options.maxConnections
        configuration.headerTimeout = options.headerTimeout
        configuration.idleTimeout = options.idleTimeout
        configuration.originTimeout = options.originTimeout
        let log = try accessLog(options)
        return try withStore { disk in
            let memory = try MemoryTier(maxBytes: Int(clamping: options.memoryBytes))
            let server = try ProxyServer(
                configuration: configuration,
                // Hot hits skip the disk store's lock for a second (CachedStore's recheck interval).
                store: CachedStore(disk: disk, memory: memory, recheckInterval: .seconds(1)),
                minimumDiskLifetime: options.minimumDiskLifetime.seconds, accessLog: log,
                usage: {
                    guard let stats = try? disk.stats() else { return (0, 0) }
                    return (Int64(clamping: stats.storedBytes), stats.entries)
                })
            server.shutdownOnTermination()
            var listening = "Serving http://\(options.listenHost):\(server.port)/"
            if let origin = options.origin { listening += " for \(origin)" }
            if options.forwardProxy { listening += " (and as a forward proxy)" }
            if let host = options.metricsHost, let port = server.metricsPort {
                listening += "; metrics at http://\(host):\(port)/metrics"
            }
            note(listening + ". Stop with SIGTERM or Ctrl-C.\n")
            server.run()
            note("Stopped.\n")
            return ExitCode.success
        }
    }

    /// Where the access log goes: `--access-log <file>` (appended), else standard error unless
    /// `--quiet`.
    private func accessLog(_ options: ServeOptions) throws -> FileHandle? {
        guard let path = options.accessLog, path != "-" else {
            return self.options.quiet ? nil : FileHandle.standardError
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure(
                ExitCode.ioError, "Cannot write the access log '\(path)': \(String(cString: strerror(errno))).")
        }
        return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }
}
