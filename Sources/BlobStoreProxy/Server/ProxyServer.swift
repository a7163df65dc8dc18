import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc
import Synchronization

/// An HTTP/1.1 caching proxy over a store: `blobstore serve`. A reverse proxy for one origin
/// (and, when configured, a forward proxy for absolute-form requests), a shared cache under
/// RFC 9111 with the rules of `BlobStoreHTTP`, request collapsing, bounded heads and timeouts, an
/// access log and Prometheus metrics. docs/http.md, "The caching proxy", describes it all.
///
/// Each client connection is served by a thread of its own, with blocking sockets bounded by
/// the configured timeouts; ``ProxyConfiguration/maxConnections`` bounds the threads.
///
/// ```swift
/// let store = try BlobStore(at: "/var/cache/proxy")
/// var configuration = ProxyConfiguration(origin: URL(string: "http://127.0.0.1:8000")!)
/// configuration.port = 8080
/// let server = try ProxyServer(
///     configuration: configuration, store: CachedStore(disk: store, memory: try MemoryTier(maxBytes: 64 << 20)))
/// server.shutdownOnTermination()
/// server.run()  // until SIGTERM: then in-flight responses finish
/// ```
public final class ProxyServer: Sendable {
    /// The port the proxy listens on (the configured one, or the one picked for port 0).
    public let port: UInt16
    /// The port of the metrics listener, when there is one.
    public let metricsPort: UInt16?
    let context: ProxyContext
    private let listener: CInt
    private let metricsListener: CInt?
    private let usage: @Sendable () -> (bytes: Int64, entries: Int)
    private let state = Mutex(State())

    private struct State {
        /// The client connections open, by descriptor.
        var clients: [CInt: ClientSlot] = [:]
        var active = 0
    }

    /// One client connection as the shutdown sees it: whether it waits for its next request (then
    /// it is woken and closes) or serves one (then it finishes). Flipped with atomics, so that a
    /// request takes no lock of the server's.
    private final class ClientSlot: Sendable {
        let fd: CInt
        let isIdle = Atomic<Bool>(true)
        init(fd: CInt) { self.fd = fd }
    }

    /// A proxy with `configuration`, keeping responses in `store`.
    ///
    /// - Parameters:
    ///   - configuration: Where to listen and forward, and the limits.
    ///   - store: Where responses are kept; a `CachedStore` with a memory tier keeps responses
    ///     fresh for less than `minimumDiskLifetime` too.
    ///   - minimumDiskLifetime: Responses fresh for less are kept in memory only
    ///     (`HTTPCachePolicy/minimumDiskLifetime`). Default 0: every stored response is written.
    ///   - accessLog: Where the access log goes, one line per request; `nil` for none.
    ///   - usage: The store's size on disk and entry count, for the metrics.
    /// - Throws: `invalidArgument` or `network` when a listen address cannot be bound.
    public init(
        configuration: ProxyConfiguration, store: any BlobStorage, minimumDiskLifetime: TimeInterval = 0,
        accessLog: FileHandle? = nil, usage: @escaping @Sendable () -> (bytes: Int64, entries: Int) = { (0, 0) }
    ) throws {
        var policy = HTTPCachePolicy()
        policy.isShared = true
        policy.minimumDiskLifetime = minimumDiskLifetime
        policy.staleRetention = configuration.staleRetention
        policy.targetedField = configuration.targetedField
        let cache = HTTPCache(store: store, policy: policy)
        self.context = ProxyContext(configuration: configuration, cache: cache, log: AccessLog(accessLog))
        self.usage = usage
        let listener = try ProxySyscalls.listen(host: configuration.host, port: configuration.port)
        self.listener = listener
        self.port = ProxySyscalls.boundPort(listener)
        if let host = configuration.metricsHost {
            do {
                let metrics = try ProxySyscalls.listen(host: host, port: configuration.metricsPort)
                self.metricsListener = metrics
                self.metricsPort = ProxySyscalls.boundPort(metrics)
            } catch {
                ProxySyscalls.close(listener)
                throw error
            }
        } else {
            (self.metricsListener, self.metricsPort) = (nil, nil)
        }
    }

    deinit {
        ProxySyscalls.close(listener)
        if let metricsListener { ProxySyscalls.close(metricsListener) }
    }

    /// Accepts and serves connections until ``shutdown()``, then waits for the responses in
    /// flight to finish (at most ``ProxyConfiguration/shutdownGrace``).
    public func run() {
        if let metricsListener {
            Thread.detachNewThread { [self] in
                while let (fd, peer) = ProxySyscalls.accept(metricsListener) { serveMetrics(fd: fd, peer: peer) }
            }
        }
        while let (fd, peer) = ProxySyscalls.accept(listener) {
            let admitted = state.withLock { state -> Bool in
                guard !context.stopping.load(ordering: .sequentiallyConsistent),
                    state.active < context.configuration.maxConnections
                else { return false }
                state.active += 1
                return true
            }
            guard admitted else {
                refuse(fd: fd, peer: peer)
                continue
            }
            let thread = Thread { [self] in
                serveConnection(WireConnection(fd: fd, peer: peer))
                state.withLock { $0.active -= 1 }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let deadline = ContinuousClock.now + context.configuration.shutdownGrace
        while state.withLock({ $0.active }) > 0, ContinuousClock.now < deadline { usleep(20_000) }
        context.origins.closeAll()
    }

    /// Stops accepting connections and closes the idle ones; ``run()`` returns once the
    /// responses in flight have finished. Safe to call from any thread, more than once.
    public func shutdown() {
        context.stopping.store(true, ordering: .sequentiallyConsistent)
        let clients = state.withLock { Array($0.clients.values) }
        ProxySyscalls.shutdown(listener)
        if let metricsListener { ProxySyscalls.shutdown(metricsListener) }
        for client in clients where client.isIdle.load(ordering: .sequentiallyConsistent) {
            ProxySyscalls.shutdown(client.fd)
        }
    }

    /// Calls ``shutdown()`` on SIGTERM or SIGINT, from a thread of its own that the signal
    /// handler wakes through a pipe (no dispatch queue in the way: a loaded machine delayed
    /// a queue's signal source by over a minute).
    public func shutdownOnTermination() {
        ProxySyscalls.onTermination { [self] in shutdown() }
    }

    // MARK: - Connections

    /// Serves the requests of one client connection until it closes, errs or the proxy stops.
    private func serveConnection(_ client: WireConnection) {
        let configuration = context.configuration
        context.metrics.connections.add(1, ordering: .relaxed)
        defer { context.metrics.connections.subtract(1, ordering: .relaxed) }
        let readTimeout = min(configuration.headerTimeout, configuration.clientTimeout)
        ProxySyscalls.setTimeouts(client.fd, receive: readTimeout, send: configuration.clientTimeout)
        let slot = ClientSlot(fd: client.fd)
        state.withLock { $0.clients[client.fd] = slot }
        defer { state.withLock { _ = $0.clients.removeValue(forKey: client.fd) } }
        while true {
            slot.isIdle.store(true, ordering: .sequentiallyConsistent)
            // Checked after the flag is set: a shutdown either sees the flag or is seen here.
            guard !context.stopping.load(ordering: .sequentiallyConsistent) || client.hasBufferedBytes else { return }
            let head: ArraySlice<UInt8>?
            do {
                head = try client.readHead(
                    maxBytes: configuration.maxHeaderBytes, idle: configuration.idleTimeout,
                    complete: configuration.headerTimeout, tooLarge: 431)
            } catch let rejection as Rejection {
                return reject(rejection, on: client)
            } catch {
                return
            }
            slot.isIdle.store(false, ordering: .sequentiallyConsistent)
            guard let head else { return }
            do {
                let request = try HeadParser.request(head, maxFields: configuration.maxHeaderFields)
                let exchange = ProxyExchange(context: context, client: client, request: request)
                do {
                    guard try exchange.respond() else { return }
                } catch let rejection as Rejection {
                    exchange.keepAlive = false
                    context.metrics.rejected.add(1, ordering: .relaxed)
                    try? exchange.sendError(rejection.status, rejection.reason)
                    return
                }
            } catch let rejection as Rejection {
                return reject(rejection, on: client)
            } catch {
                return  // the client connection failed: nothing more can be sent on it
            }
        }
    }

    /// Answers a request that could not be read or parsed, and closes the connection.
    private func reject(_ rejection: Rejection, on client: WireConnection) {
        context.metrics.requests.add(1, ordering: .relaxed)
        context.metrics.rejected.add(1, ordering: .relaxed)
        let body = "\(rejection.status) \(ResponseHead.reason(for: rejection.status)): \(rejection.reason).\n"
        let head = ResponseHead(
            minorVersion: 1, status: rejection.status, reason: "",
            headers: [
                "Date": HTTPDate.format(Date()), "Content-Type": "text/plain; charset=utf-8",
                "Content-Length": String(body.utf8.count), "Connection": "close",
            ])
        try? client.write(head.serialized + Array(body.utf8))
        context.log.record(
            peer: client.peer, requestLine: "-", status: rejection.status, bytes: body.utf8.count,
            cacheStatus: "\(context.configuration.name); detail=\"rejected\"", duration: .zero)
    }

    /// Answers a connection over the limit with 503 and closes it.
    private func refuse(fd: CInt, peer: String) {
        let client = WireConnection(fd: fd, peer: peer)
        ProxySyscalls.setTimeouts(fd, receive: .seconds(1), send: .seconds(1))
        reject(
            Rejection(503, "the proxy serves \(context.configuration.maxConnections) connections at most"), on: client)
    }

    /// Answers one request on the metrics listener: `GET /metrics`, else 404.
    private func serveMetrics(fd: CInt, peer: String) {
        let client = WireConnection(fd: fd, peer: peer)
        ProxySyscalls.setTimeouts(fd, receive: .seconds(5), send: .seconds(5))
        guard
            let head = try? client.readHead(maxBytes: 8 << 10, idle: .seconds(5), complete: .seconds(5), tooLarge: 431),
            let request = try? HeadParser.request(head, maxFields: 100)
        else { return }
        let found = request.method == "GET" && (request.target == "/metrics" || request.target.hasPrefix("/metrics?"))
        let (bytes, entries) = found ? usage() : (0, 0)
        let body = found ? context.metrics.text(storeBytes: bytes, storeEntries: entries) : "Not found: GET /metrics.\n"
        let response = ResponseHead(
            minorVersion: 1, status: found ? 200 : 404, reason: "",
            headers: [
                "Content-Type": found ? "text/plain; version=0.0.4; charset=utf-8" : "text/plain; charset=utf-8",
                "Content-Length": String(body.utf8.count), "Connection": "close",
            ])
        try? client.write(response.serialized + Array(body.utf8))
    }
}
