import BlobStore
import BlobStoreNet
import Foundation
import Synchronization

/// The connections to one Redis server, bounded: at most ``maximumOpen`` in use at a time (an
/// operation that finds them all busy waits for one, up to its operation timeout), and at most
/// ``maximumIdle`` kept open between operations, most recently used first.
final class RedisConnectionPool: Sendable {
    /// No connection to the server could be made (refused, timed out, name not resolved, login
    /// refused), and no command ran: none was sent, or only on an idle connection the server had
    /// closed. ``RedisClusterBackend`` then looks for the
    /// slot's new master; everyone else throws ``error``.
    struct Unreachable: Error {
        let error: BlobStoreError
    }

    let server: RedisServer
    let timeouts: RemoteTimeouts
    let maximumOpen: Int
    let maximumIdle: Int
    private let resolver: NameResolver
    /// The TLS settings, for a server with ``RedisServer/usesTLS``.
    private let tls: TLSContext?
    private let idle = Mutex<[RedisConnection]>([])
    /// One permit per connection in use.
    private let permits: DispatchSemaphore

    init(
        _ server: RedisServer, timeouts: RemoteTimeouts, maximumOpen: Int = 16, maximumIdle: Int = 4,
        resolver: NameResolver, tls: TLSContext? = nil
    ) {
        self.server = server
        self.timeouts = timeouts
        self.maximumOpen = max(1, maximumOpen)
        self.maximumIdle = max(0, maximumIdle)
        self.resolver = resolver
        self.tls = tls
        permits = DispatchSemaphore(value: self.maximumOpen)
    }

    /// The connections kept open between operations (tests).
    var idleConnections: Int { idle.withLock { $0.count } }

    /// Runs one command on an idle connection or a new one, and hands its reply to `body`; an
    /// error reply is handed over too.
    ///
    /// When an idle connection turns out closed by the server (reset, broken pipe or end of
    /// stream before the first byte of the reply: it restarted, or dropped idle clients), the
    /// command is sent once more on a new connection; after any other failure (a timeout, a reply
    /// that is not the protocol) it is not, since the server may have run it. The connection is
    /// kept after a complete reply that `body` accepts, and after an error reply whatever `body`
    /// does (the stream is in step); otherwise it is closed.
    ///
    /// - Parameters:
    ///   - limits: What the reply may hold.
    ///   - asking: Send `ASKING` first (a cluster's `-ASK` redirection).
    /// - Throws: ``Unreachable`` when no connection could be made; ``BlobStoreError`` for any
    ///   other failure, and whatever `body` throws.
    func perform<R>(
        _ arguments: [Data], limits: RESPLimits, asking: Bool = false,
        _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        try acquire()
        defer { permits.signal() }
        if let pooled = idle.withLock({ $0.popLast() }) {
            do {
                return try exchange(arguments, on: pooled, limits: limits, asking: asking, body)
            } catch let error where pooled.failedBeforeReply(error) {
                // Stale: the server did not run the command. A new connection below.
            }
        }
        return try exchange(arguments, on: try connect(), limits: limits, asking: asking, body)
    }

    /// One `PING`, timed, on an idle connection or a new one: the server as `role`.
    func ping(role: RemoteNodeStatus.Role) -> RemoteNodeStatus {
        RemoteNodeStatus.measure(server.description, role: role) {
            do {
                try perform([Data("PING".utf8)], limits: RESPLimits(maximumBulk: 0)) { reply, connection in
                    guard case .simple("PONG") = reply else { throw connection.unexpected(reply, to: "PING") }
                }
            } catch let unreachable as Unreachable {
                throw unreachable.error
            }
        }
    }

    /// Closes the idle connections (a node that left the cluster).
    func closeIdle() {
        for connection in idle.withLock({ idle in
            defer { idle = [] }; return idle
        }) { connection.close() }
    }

    deinit { closeIdle() }

    // MARK: - Helpers

    /// Takes a permit, waiting at most the operation timeout.
    private func acquire() throws {
        let (seconds, attoseconds) = timeouts.operation.components
        let nanoseconds = min(max(0, seconds), 1 << 32) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
        guard permits.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success else {
            throw BlobStoreError.remote(
                server.description, "all \(maximumOpen) connections were busy for \(timeouts.operation).",
                errno: ETIMEDOUT)
        }
    }

    private func connect() throws -> RedisConnection {
        do {
            return try RedisConnection(server, timeouts: timeouts, resolver: resolver, tls: tls)
        } catch let error as BlobStoreError {
            throw Unreachable(error: error)
        }
    }

    private func exchange<R>(
        _ arguments: [Data], on connection: RedisConnection, limits: RESPLimits, asking: Bool,
        _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        let reply: RESPValue
        do {
            reply = try connection.command(arguments, limits: limits, timeout: timeouts.operation, asking: asking)
        } catch {
            connection.close()
            throw error
        }
        do {
            let result = try body(reply, connection)
            release(connection)
            return result
        } catch {
            if case .error = reply { release(connection) } else { connection.close() }
            throw error
        }
    }

    /// Keeps `connection` for the next operation, unless ``maximumIdle`` are kept already.
    private func release(_ connection: RedisConnection) {
        let kept = idle.withLock { idle in
            guard idle.count < maximumIdle else { return false }
            idle.append(connection)
            return true
        }
        if !kept { connection.close() }
    }
}
