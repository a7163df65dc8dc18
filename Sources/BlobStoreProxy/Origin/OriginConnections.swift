import BlobStore
import Foundation

/// The idle kept-alive connections to origins of one ``EventLoop``'s tasks, by `host:port`
/// (``ForwardTarget/origin``), so that a request reuses one instead of connecting again.
/// Bounded: at most ``maxIdlePerOrigin`` each; more are closed. Used on its loop's thread only,
/// so it has no lock.
final class OriginConnections: @unchecked Sendable {
    /// The most idle connections kept for one origin.
    let maxIdlePerOrigin: Int
    /// The connect timeout, and the read and write timeout of each connection.
    let timeout: Duration
    private var idle: [String: [(connection: WireConnection, since: MonotonicInstant)]] = [:]
    /// How long an idle connection is kept: less than the keep-alive timeouts origins commonly
    /// use (5 s for Node.js and Apache httpd), so that the origin rarely closes one under it. In
    /// nanoseconds, compared as integers (a `Duration` is 128-bit arithmetic).
    static let maxIdleNanoseconds: UInt64 = 4_000_000_000

    init(timeout: Duration, maxIdlePerOrigin: Int = 256) {
        self.timeout = timeout
        self.maxIdlePerOrigin = maxIdlePerOrigin
    }

    /// An idle connection to `target`'s origin, or a new one made without blocking `loop`, whose
    /// tasks use it. An idle one is known open when nothing was reported on it since its last
    /// read (``WireConnection/isOpenWhileIdle(peeking:)``); when `peeking`, for a request that
    /// cannot be sent again on a new connection, the kernel is asked as well.
    ///
    /// - Returns: The connection, and whether it was reused (a reused one may have been closed by
    ///   the origin meanwhile: a request that fails on it before any response byte is retried).
    /// - Throws: `network` when a new connection cannot be made in time.
    func connection(to target: ForwardTarget, on loop: EventLoop, fresh: Bool = false, peeking: Bool = true)
        async throws
        -> (WireConnection, reused: Bool)
    {
        while !fresh, let (reused, since) = idle[target.origin]?.popLast() {
            // One the origin closed while it waited (or that waited too long) is dropped.
            if MonotonicInstant.now.nanoseconds &- since.nanoseconds < Self.maxIdleNanoseconds,
                reused.isOpenWhileIdle(peeking: peeking)
            {
                return (reused, true)
            }
        }
        let fd = try ProxySyscalls.startConnecting(host: target.host, port: target.port)
        let connection = WireConnection(fd: fd, peer: target.origin, timeouts: (timeout, timeout))
        connection.loop = loop
        try await connection.connected(host: target.host, port: target.port, within: timeout)
        return (connection, false)
    }

    /// Keeps `connection` for the next request to `target`'s origin (its response was read to
    /// the end and the origin keeps it open).
    func giveBack(_ connection: WireConnection, to target: ForwardTarget) {
        guard !connection.hasBufferedBytes, !connection.reachedEnd, !connection.hasUnsent else { return }
        Self.keep((connection, MonotonicInstant.now), in: &idle[target.origin, default: []], max: maxIdlePerOrigin)
    }

    /// Keeps `connection` when `keepsAlive`, else lets it close.
    func giveBack(_ connection: WireConnection, to target: ForwardTarget, if keepsAlive: Bool) {
        if keepsAlive { giveBack(connection, to: target) }
    }

    /// Appends `idle` to `pool` unless it holds `max` already (one lookup of the pool).
    private static func keep(
        _ idle: (connection: WireConnection, since: MonotonicInstant),
        in pool: inout [(connection: WireConnection, since: MonotonicInstant)], max: Int
    ) {
        if pool.count < max { pool.append(idle) }
    }

    /// Closes every idle connection.
    func closeAll() {
        idle.removeAll()
    }
}
