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
/// Every connection belongs to one of the event loops, one per core (`EventLoop`), which answer
/// fresh hits in memory in place. Any other request, and any answer the client does not take at
/// once, becomes a task on the connection's loop: misses, revalidations, pass-through, request
/// and response bodies are straight-line code whose socket waits suspend the task, never a
/// thread, bounded by the configured timeouts; the task gives the connection back to its loop
/// when it waits for a request again. ``ProxyConfiguration/maxConnections`` bounds the
/// connections and so the tasks.
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

    /// The event loops that hold the connections waiting for a request, one per core.
    private let loops: [EventLoop]

    private struct State {
        /// The client connections open.
        var active = 0
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
        self.loops = try (0..<max(1, ProcessInfo.processInfo.activeProcessorCount)).map { _ in
            try EventLoop(originTimeout: configuration.originTimeout)
        }
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
    /// flight to finish (at most ``ProxyConfiguration/shutdownGrace``). Ignores `SIGPIPE` in the
    /// process from then on: bodies sent from stored files (`sendfile`) to a client that went away
    /// fail with `EPIPE` instead of ending the process.
    public func run() {
        ProxySyscalls.ignoreBrokenPipes()
        if let metricsListener {
            Thread.detachNewThread { [self] in
                while let (fd, peer) = ProxySyscalls.accept(metricsListener) {
                    let client = WireConnection(fd: fd, peer: peer, timeouts: (.seconds(5), .seconds(5)))
                    client.loop = loops[0]
                    loops[0].spawn { [self] in await serveMetrics(client) }
                }
            }
        }
        for loop in loops {
            let handler = EventLoop.Handler(
                readable: { [self] in readable($0, on: $1) },
                expired: { [self] in expired($0, at: $1) },
                stopping: { [context] in context.stopping.load(ordering: .relaxed) },
                periodically: { [context] in context.log.flush(loop.logBatch) })
            let thread = Thread { loop.run(handler) }
            thread.stackSize = 1 << 20
            thread.start()
        }
        var next = 0
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
            let configuration = context.configuration
            context.metrics.connections.add(1, ordering: .relaxed)
            let timeouts = (min(configuration.headerTimeout, configuration.clientTimeout), configuration.clientTimeout)
            let client = WireConnection(fd: fd, peer: peer, timeouts: timeouts) { [self] in
                context.metrics.connections.subtract(1, ordering: .relaxed)
                state.withLock { $0.active -= 1 }
            }
            loops[next % loops.count].hold(client)
            next += 1
        }
        let deadline = MonotonicInstant.now + context.configuration.shutdownGrace
        while state.withLock({ $0.active }) > 0, MonotonicInstant.now < deadline { usleep(20_000) }
        for loop in loops { loop.finish() }
    }

    /// Stops accepting connections and closes the idle ones; ``run()`` returns once the
    /// responses in flight have finished. Safe to call from any thread, more than once.
    public func shutdown() {
        context.stopping.store(true, ordering: .sequentiallyConsistent)
        ProxySyscalls.shutdown(listener)
        if let metricsListener { ProxySyscalls.shutdown(metricsListener) }
        for loop in loops { loop.poke() }
    }

    /// Calls ``shutdown()`` on SIGTERM or SIGINT, from a thread of its own that the signal
    /// handler wakes through a pipe (no dispatch queue in the way: a loaded machine delayed
    /// a queue's signal source by over a minute).
    public func shutdownOnTermination() {
        ProxySyscalls.onTermination { [self] in shutdown() }
    }

    // MARK: - Connections

    /// What becomes of a connection in an event loop that has bytes to read: the requests
    /// buffered whole are answered in place while fresh hits in memory answer them and the
    /// socket takes the answers at once; the first other one goes with the connection to a
    /// task on the loop (``serveConnection(_:startingWith:returningTo:)``).
    private func readable(_ client: WireConnection, on loop: EventLoop) -> EventLoop.Decision {
        switch nextRequest(client) {
        case .keep: return .keep
        case .close: return .close
        case .serve(let request, let lookedUp):
            return .handOff { [self] in
                await serveConnection(client, startingWith: (request, lookedUp), returningTo: loop)
            }
        case .flush(let keepAlive):
            return .handOff { [self] in
                guard (try? await client.flush()) != nil, keepAlive else { return }
                await serveConnection(client, startingWith: nil, returningTo: loop)
            }
        }
    }

    /// What a connection's next request needs, once the requests buffered whole that fresh hits
    /// in memory answer have been answered (``nextRequest(_:)``).
    private enum NextRequest {
        /// Nothing more to do until more bytes arrive; whether a hit was answered.
        case keep(answered: Bool)
        /// The connection is done: closed by the client, broken, or rejected.
        case close
        /// A request that needs a task: the origin, a body, a revalidation (with what the cache
        /// held for it, when it was looked up).
        case serve(RequestHead, ProxyExchange.StoredLookup?)
        /// Answers the socket did not take at once wait to be flushed; whether the connection
        /// then carries another request.
        case flush(keepAlive: Bool)
    }

    /// Reads what the client sent without waiting and answers the requests buffered whole that
    /// fresh hits in memory answer, on the connection's loop, until one needs more
    /// (``NextRequest``): what an event loop does with a connection that reported bytes, and what
    /// a task that lingers on its connection does (``nextRequestOnTask(_:on:)``).
    private func nextRequest(_ client: WireConnection) -> NextRequest {
        do {
            guard try client.receiveWithoutWaiting() != false else { return .close }
        } catch {
            return .close
        }
        var answered = false
        while true {
            let request: RequestHead
            do {
                guard
                    let head = try client.bufferedHead(maxBytes: context.configuration.maxHeaderBytes, tooLarge: 431)
                else { return client.reachedEnd ? .close : .keep(answered: answered) }
                request = try HeadParser.request(head, maxFields: context.configuration.maxHeaderFields)
            } catch {
                reject(error, on: client)
                return .close
            }
            guard !context.stopping.load(ordering: .relaxed) else { return .close }
            let exchange = ProxyExchange(context: context, client: client, request: request)
            let answer: ProxyExchange.LoopAnswer
            do {
                answer = try exchange.respondIfFreshInMemory()
            } catch {
                return .close
            }
            let keepAlive: Bool
            switch answer {
            case .notAnswered(let lookedUp): return .serve(request, lookedUp)
            case .answered(let keepsAlive): keepAlive = keepsAlive
            }
            answered = true
            // What the socket does not take at once is sent by a task that waits for the client.
            guard let sent = try? client.sendNow() else { return .close }
            if !sent { return .flush(keepAlive: keepAlive) }
            guard keepAlive else { return .close }
            client.waitingSince = .now
        }
    }

    /// Whether a connection in an event loop is past its timeouts at `now`: a head begun longer
    /// than ``ProxyConfiguration/headerTimeout`` ago is answered 408; a connection without one
    /// that has waited longer than ``ProxyConfiguration/idleTimeout`` closes.
    private func expired(_ client: WireConnection, at now: MonotonicInstant) -> Bool {
        let configuration = context.configuration
        if let began = client.headBegan {
            guard now - began >= configuration.headerTimeout else { return false }
            reject(Rejection(408, "the head did not arrive in \(configuration.headerTimeout)"), on: client)
            return true
        }
        return now - client.waitingSince >= configuration.idleTimeout
    }

    /// Serves the requests of one client connection, starting with `first` when a loop read it
    /// already (with what the cache held for it, when the loop looked): those buffered, then
    /// those that arrive while the task waits for them (``nextRequestOnTask(_:on:)``), until it
    /// gives the connection back to `loop`, the task's own. Ends when the connection closes, errs
    /// or the proxy stops (what was written to it sent first, as far as the client takes it).
    private func serveConnection(
        _ client: WireConnection, startingWith first: (RequestHead, ProxyExchange.StoredLookup?)?,
        returningTo loop: EventLoop
    ) async {
        // The connection goes back to the loop only here, once the task is done with it: the
        // loop may hand it to another task at once, and two tasks must never wait on it.
        if await serveRequests(client, startingWith: first, returningTo: loop) {
            return loop.hold(client)
        }
        if client.hasUnsent { try? await client.flush() }
    }

    /// The requests of ``serveConnection(_:startingWith:returningTo:)``.
    ///
    /// - Returns: Whether the connection goes back to the loop (else it is done with).
    private func serveRequests(
        _ client: WireConnection, startingWith first: (RequestHead, ProxyExchange.StoredLookup?)?,
        returningTo loop: EventLoop
    ) async -> Bool {
        let configuration = context.configuration
        var next = first
        var answered = 0
        while true {
            // A client may send requests faster than they are answered, each answer leaving at
            // once (HEADs of a body kept as chunks): then no wait ever suspends the task, and
            // it would keep its loop from the loop's other connections. It lets them have a
            // turn every few requests.
            if answered > 0 && answered % Self.requestsPerTurn == 0 {
                do { try await loop.yieldTurn() } catch { return false }
            }
            answered += 1
            let request: RequestHead
            var lookedUp: ProxyExchange.StoredLookup?
            do {
                if let first = next {
                    (request, lookedUp) = first
                    next = nil
                } else {
                    guard client.hasBufferedBytes else {
                        if context.stopping.load(ordering: .sequentiallyConsistent) { return false }
                        // A connection whose last request went to the origin is likely to send
                        // another such: the task waits for it rather than ending and a new one
                        // being made for it.
                        switch await nextRequestOnTask(client, on: loop) {
                        case .serve(let request, let lookedUp): next = (request, lookedUp)
                        case .giveBack: return true
                        case .done: return false
                        }
                        continue
                    }
                    guard
                        let head = try await client.readHead(
                            maxBytes: configuration.maxHeaderBytes, idle: configuration.idleTimeout,
                            complete: configuration.headerTimeout, tooLarge: 431)
                    else { return false }
                    request = try HeadParser.request(head, maxFields: configuration.maxHeaderFields)
                }
                let exchange = ProxyExchange(context: context, client: client, request: request)
                do {
                    let keepAlive = try await exchange.respond(lookedUp: lookedUp)
                    try await client.flush()
                    guard keepAlive else { return false }
                } catch let rejection as Rejection {
                    exchange.keepAlive = false
                    context.metrics.rejected.add(1, ordering: .relaxed)
                    try? exchange.sendError(rejection.status, rejection.reason)
                    return false
                }
            } catch {
                reject(error, on: client)
                return false
            }
        }
    }

    /// The requests a connection's task answers in a row before it lets its loop see to its
    /// other connections (``serveRequests(_:startingWith:returningTo:)``).
    static let requestsPerTurn = 16

    /// What a task that waited for its connection's next request does next
    /// (``nextRequestOnTask(_:on:)``).
    private enum NextOnTask {
        /// Serves this request (with what the cache held for it, when it was looked up).
        case serve(RequestHead, ProxyExchange.StoredLookup?)
        /// Gives the connection back to the loop, which answers its hits without a task.
        case giveBack
        /// Is done with the connection: it closed, timed out or broke, or the proxy stops.
        case done
    }

    /// The next request of a connection whose task has just answered one from the origin,
    /// waited for on the loop by the task itself, which then serves it (a task costs more to make
    /// than a wait on the loop costs to resume). The task is done with the connection when it
    /// closes, stays idle past ``ProxyConfiguration/idleTimeout`` (or sends part of a head for
    /// longer than ``ProxyConfiguration/headerTimeout``: answered 408), or the proxy stops. It
    /// gives it back to the loop once a hit was answered on it, or when more bytes may wait than
    /// one read took: the caller does that, once the task has nothing more to do with it.
    private func nextRequestOnTask(_ client: WireConnection, on loop: EventLoop) async -> NextOnTask {
        // (The configuration is read where it is, not copied into the task's frame: a copy is a
        // retain and a release of each of its strings at every request.)
        client.waitingSince = .now
        while true {
            switch nextRequest(client) {
            case .serve(let request, let lookedUp): return .serve(request, lookedUp)
            case .close: return .done
            case .flush(let keepAlive):
                guard (try? await client.flush()) != nil, keepAlive else { return .done }
                return .giveBack
            case .keep(let answered):
                if answered || client.mayHaveBytes { return .giveBack }
            }
            if context.stopping.load(ordering: .sequentiallyConsistent) { return .done }
            let deadline =
                client.headBegan.map { $0.advanced(byNanoseconds: context.clientWaitNanoseconds.header) }
                ?? client.waitingSince.advanced(byNanoseconds: context.clientWaitNanoseconds.idle)
            do {
                try await loop.ready(client, writable: false, until: deadline, awaitingRequest: true)
            } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
                // Past its timeouts: answered 408 when a head had begun, and closed.
                if expired(client, at: .now) { return .done }
            } catch {
                return .done
            }
        }
    }

    /// Answers a request that could not be read or parsed (a ``Rejection``), and closes the
    /// connection; any other error means it failed, and nothing more is sent on it.
    private func reject(_ error: any Error, on client: WireConnection) {
        guard let rejection = error as? Rejection else { return }
        reject(rejection, on: client)
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
        _ = try? client.sendNow()
        context.log.record(
            peer: client.peer, request: nil, status: rejection.status, bytes: body.utf8.count,
            cacheStatus: CacheStatus(detail: "rejected"), cacheName: context.configuration.name,
            nanoseconds: 0)
    }

    /// Answers a connection over the limit with 503 and closes it.
    private func refuse(fd: CInt, peer: String) {
        let client = WireConnection(fd: fd, peer: peer)
        reject(
            Rejection(503, "the proxy serves \(context.configuration.maxConnections) connections at most"), on: client)
    }

    /// Answers one request on the metrics listener: `GET /metrics`, else 404.
    private func serveMetrics(_ client: WireConnection) async {
        guard
            let head = try? await client.readHead(
                maxBytes: 8 << 10, idle: .seconds(5), complete: .seconds(5), tooLarge: 431),
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
        try? await client.flush()
    }
}
