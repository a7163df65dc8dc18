import BlobStore
import Foundation
import Glibc

/// A thread that waits for requests on many idle client connections at once (`epoll`), so that a
/// busy proxy is not woken once per request per connection: with a thread per connection, each
/// request cost a context switch, a third of a cached hit's CPU time on two cores.
///
/// The loop owns the connections it holds; ``EventLoop/Handler/readable(_:)`` decides, on the loop's thread,
/// what becomes of one with bytes to read: kept, closed, or handed to another thread (taken out
/// of `epoll` first, so that no two threads read it). A connection comes back with ``hold(_:)``,
/// from any thread.
final class EventLoop: @unchecked Sendable {
    /// What the loop asks of its owner, on the loop's thread.
    struct Handler: Sendable {
        /// What becomes of a connection with bytes to read (or at the end of its stream).
        var readable: @Sendable (WireConnection, EventLoop) -> Decision
        /// Whether a connection that has waited since `now` is past its timeouts; the handler
        /// answers it (408) when it must, and the loop closes it.
        var expired: @Sendable (WireConnection, ContinuousClock.Instant) -> Bool
        /// Whether the proxy is stopping: the loop then closes every connection it holds.
        var stopping: @Sendable () -> Bool
        /// Called before the loop waits for descriptors again, and once when it ends.
        var beforeWaiting: @Sendable () -> Void
    }

    /// What becomes of a connection after its bytes were read.
    enum Decision {
        /// The loop keeps waiting for its next request.
        case keep
        /// The loop closes it.
        case close
        /// The loop lets go of it and runs `work`, which owns it from then on.
        case handOff(@Sendable () -> Void)
    }

    /// The handler ``run(_:)`` was given (the loop's thread only).
    private var handler: Handler!
    private let epoll: CInt
    private let wake: CInt
    /// Connections handed in by other threads, waiting for the loop to add them; `nil` once the
    /// loop has ended (a connection handed in then is closed).
    private let incoming = ThreadLock<[WireConnection]?>([])
    /// The connections the loop holds, by descriptor (the loop's thread only).
    private var held: [CInt: WireConnection] = [:]
    /// Whether ``run(_:)`` has ended and closed the descriptors.
    private var ended = false
    /// How often the loop looks for connections past their timeouts.
    private static let sweepInterval = Duration.milliseconds(250)

    /// A loop, not running yet.
    ///
    /// - Throws: `network` when the kernel refuses an `epoll` or an `eventfd` descriptor.
    init() throws {
        (epoll, wake) = try ProxySyscalls.eventLoopDescriptors()
    }

    /// Runs the loop on the calling thread, asking `handler`, until ``finish()``.
    func run(_ handler: Handler) {
        self.handler = handler
        var ready = [CInt](repeating: -1, count: 256)
        var lastSweep = ContinuousClock.now
        while true {
            handler.beforeWaiting()
            let count = ProxySyscalls.wait(epoll, into: &ready, timeout: Self.sweepInterval)
            var woken = false
            for fd in ready[..<count] {
                if fd == wake {
                    woken = true
                } else if let connection = held[fd] {
                    decide(handler.readable(connection, self), for: connection)
                }
            }
            if woken {
                ProxySyscalls.drainWake(wake)
                let arrived = incoming.withLock { incoming in
                    defer { if incoming != nil { incoming = [] } }
                    return incoming
                }
                guard let arrived else { break }
                for connection in arrived { add(connection) }
            }
            if handler.stopping() {
                for connection in Array(held.values) { remove(connection) }
            }
            let now = ContinuousClock.now
            if now - lastSweep >= Self.sweepInterval {
                lastSweep = now
                for connection in Array(held.values) where handler.expired(connection, now) { remove(connection) }
            }
        }
        for connection in Array(held.values) { remove(connection) }
        handler.beforeWaiting()
        ProxySyscalls.close(epoll)
        ProxySyscalls.close(wake)
        ended = true
    }

    deinit {
        // A loop that never ran (its server was not run) still has its descriptors.
        if !ended {
            ProxySyscalls.close(epoll)
            ProxySyscalls.close(wake)
        }
    }

    /// Gives the loop `connection` to wait on; from any thread. After ``finish()``, closes it.
    func hold(_ connection: WireConnection) {
        let accepted = incoming.withLock { incoming -> Bool in
            guard incoming != nil else { return false }
            incoming!.append(connection)
            ProxySyscalls.signalWake(wake)
            return true
        }
        if !accepted { connection.close() }
    }

    /// Ends the loop: it closes what it holds and returns from ``run()``.
    func finish() {
        incoming.withLock { incoming in
            for connection in incoming ?? [] { connection.close() }
            incoming = nil
            ProxySyscalls.signalWake(wake)
        }
    }

    /// Wakes the loop so that it looks at ``Handler/stopping`` now.
    func poke() {
        incoming.withLock { incoming in if incoming != nil { ProxySyscalls.signalWake(wake) } }
    }

    private func add(_ connection: WireConnection) {
        if handler.stopping() { return connection.close() }
        guard ProxySyscalls.watch(epoll, connection.fd) else { return connection.close() }
        held[connection.fd] = connection
        connection.waitingSince = .now
        // Bytes may have arrived before the descriptor was watched, or be buffered already.
        if connection.hasBufferedBytes { decide(handler.readable(connection, self), for: connection) }
    }

    private func decide(_ decision: Decision, for connection: WireConnection) {
        switch decision {
        case .keep: break
        case .close: remove(connection)
        case .handOff(let work):
            ProxySyscalls.unwatch(epoll, connection.fd)
            held[connection.fd] = nil
            work()
        }
    }

    private func remove(_ connection: WireConnection) {
        ProxySyscalls.unwatch(epoll, connection.fd)
        held[connection.fd] = nil
        connection.close()
    }
}
