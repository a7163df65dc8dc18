@_spi(BlobStorePackage) import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc
import Synchronization

/// A thread that runs all of the proxy's socket work for the connections it owns (`epoll`), so
/// that a busy proxy is neither woken once per request per connection nor pays a thread per
/// request: with a thread per exchange, a request that went to the origin cost four context
/// switches and a thread's creation.
///
/// A connection waiting for a request is *held*: ``EventLoop/Handler/readable(_:_:)`` decides, on
/// the loop's thread, what becomes of one with bytes to read: kept, closed, or handed to a task
/// (taken out of the held set first, so that nothing else reads it). Every socket is in the
/// loop's `epoll` set once, edge-triggered, from its first use to its close, whether held or
/// used by a task: a request handed to a task and back costs no `epoll_ctl`, and a read is
/// tried only when bytes may be there (``WireConnection`` keeps whether its last read emptied
/// the socket; an arrival since is reported once, and kept here until the connection's next
/// read when nobody waited for it), so that a task waiting for its origin's answer does not
/// first find the socket empty. The loop is also the
/// `TaskExecutor` those tasks run on: an exchange that waits for its origin or for a slow client
/// is a task suspended in ``ready(_:writable:until:)``, resumed when `epoll` reports its socket,
/// so that the RFC 9111 code reads as straight-line code while no thread blocks on a socket.
/// Everything a task touches of its connections happens on this one thread.
final class EventLoop: TaskExecutor, @unchecked Sendable {
    /// What the loop asks of its owner, on the loop's thread.
    struct Handler: Sendable {
        /// What becomes of a held connection with bytes to read (or at the end of its stream).
        var readable: @Sendable (WireConnection, EventLoop) -> Decision
        /// Whether a held connection that has waited since `now` is past its timeouts; the
        /// handler answers it (408) when it must, and the loop closes it.
        var expired: @Sendable (WireConnection, MonotonicInstant) -> Bool
        /// Whether the proxy is stopping: the loop then closes every connection it holds.
        var stopping: @Sendable () -> Bool
        /// Called at each sweep (about every 250 ms, busy or idle) and once when the loop ends:
        /// the access log is flushed then.
        var periodically: @Sendable () -> Void
    }

    /// What becomes of a held connection after its bytes were read.
    enum Decision {
        /// The loop keeps waiting for its next request.
        case keep
        /// The loop closes it.
        case close
        /// The loop lets go of it and runs `work` on this loop as a task, which owns it from then
        /// on (and gives it back with ``hold(_:)``).
        case handOff(@Sendable () async -> Void)
    }

    /// The handler ``run(_:)`` was given (the loop's thread only).
    private var handler: Handler!
    private let epoll: CInt
    private let wake: CInt
    /// What other threads hand in: connections to hold, task jobs to run; `nil` once the loop
    /// has ended (a connection handed in then is closed).
    private let incoming = ThreadLock<Incoming?>(Incoming())
    private struct Incoming {
        var connections: [WireConnection] = []
        var jobs: [UnownedJob] = []
    }
    // The loop's queues and tables below are its thread's alone: their exclusive access is
    // checked when compiled, not again at run time (docs/design.md, "Exclusivity checked when
    // compiled").

    /// Task jobs enqueued on the loop's own thread, run before it waits again.
    @exclusivity(unchecked) private var jobs: [UnownedJob] = []
    /// The batch of jobs being run: swapped with ``jobs`` at each turn, both arrays keeping their
    /// capacity, so that enqueueing a job allocates nothing.
    @exclusivity(unchecked) private var running: [UnownedJob] = []
    /// The loop's thread once it runs (`pthread_t`, an integer on Linux), 0 before: atomic, as
    /// other threads ask whether they are it (``isLoopThread``) while the loop may be starting.
    private let thread = Atomic<UInt>(0)
    /// The held connections, by descriptor (the loop's thread only).
    @exclusivity(unchecked) private var held: [CInt: WireConnection] = [:]
    /// The tasks suspended until a socket is ready, by descriptor (the loop's thread only).
    @exclusivity(unchecked) private var waiting: [CInt: Waiter] = [:]
    private struct Waiter {
        let connection: WireConnection
        let writable: Bool
        /// Whether the task waits for the connection's next request, between requests: such a
        /// wait ends when the proxy stops, as a held connection is closed then.
        let awaitingRequest: Bool
        let deadline: MonotonicInstant
        let continuation: UnsafeContinuation<Void, any Error>
    }
    /// The sockets that reported bytes (or their end) while their connection was neither held
    /// nor waited for to read: taken by the connection's next read (``claimArrival(_:)``).
    /// Entries left by connections that closed cost the next socket with that number one read.
    @exclusivity(unchecked) private var arrivals: [CInt: ProxySyscalls.Readiness] = [:]
    /// Held connections whose last read filled the buffer, so that more bytes may wait without
    /// another report: read again after the reported ones, before the loop waits.
    @exclusivity(unchecked) private var again: [WireConnection] = []
    /// The tasks that gave the loop's other connections a turn (``yieldTurn()``): resumed once the
    /// loop has waited again and seen to the sockets ready meanwhile.
    @exclusivity(unchecked) private var turns: [UnsafeContinuation<Void, any Error>] = []
    /// Work to do at a time (a collapsed request's timeout), in no order (the loop's thread only).
    private var timers: [(deadline: MonotonicInstant, work: () -> Void)] = []
    /// The idle kept-alive origin connections of this loop's tasks.
    let origins: OriginConnections
    /// The access log lines of the exchanges on this loop, written at each sweep (or sooner,
    /// when they fill a write).
    let logBatch = AccessLog.Batch()
    /// The stored records this loop's exchanges decoded lately (`HTTPCache`'s own memo is shared
    /// by every thread; this one only by this loop's).
    let records = DecodedRecords()
    /// Whether ``run(_:)`` has ended and closed the descriptors.
    private var ended = false
    /// How often the loop looks for connections and waits past their timeouts, in
    /// milliseconds: compared as integers at each turn (a `Duration` is 128-bit arithmetic).
    private static let sweepMilliseconds: UInt64 = 250

    /// A loop, not running yet, whose tasks connect to origins within `originTimeout`.
    ///
    /// - Throws: `network` when the kernel refuses an `epoll` or an `eventfd` descriptor.
    init(originTimeout: Duration) throws {
        (epoll, wake) = try ProxySyscalls.eventLoopDescriptors()
        origins = OriginConnections(timeout: originTimeout)
    }

    /// Runs the loop on the calling thread, asking `handler`, until ``finish()``.
    func run(_ handler: Handler) {
        self.handler = handler
        thread.store(UInt(pthread_self()), ordering: .releasing)
        var ready = [CInt](repeating: -1, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        var lastSweep = MonotonicInstant.now
        while true {
            runJobs()
            let count = ProxySyscalls.wait(
                epoll, into: &ready, events: &events,
                milliseconds: jobs.isEmpty && again.isEmpty && turns.isEmpty ? CInt(Self.sweepMilliseconds) : 0)
            var woken = false
            for index in 0..<count {
                let fd = ready[index]
                guard fd != wake else {
                    woken = true
                    continue
                }
                report(ProxySyscalls.Readiness(mask: events[index]), of: fd)
            }
            if !again.isEmpty {
                let batch = again
                again = []
                for connection in batch where held[connection.fd] === connection {
                    decide(handler.readable(connection, self), for: connection)
                }
            }
            if !turns.isEmpty {
                let batch = turns
                turns = []
                for turn in batch { turn.resume() }
            }
            if woken {
                ProxySyscalls.drainWake(wake)
                let arrived = incoming.withLock { incoming in
                    defer { if incoming != nil { incoming = Incoming() } }
                    return incoming
                }
                guard let arrived else { break }
                jobs.append(contentsOf: arrived.jobs)
                for connection in arrived.connections { add(connection) }
            }
            if handler.stopping() {
                for connection in Array(held.values) { remove(connection) }
                for (fd, waiter) in waiting where waiter.awaitingRequest {
                    waiting[fd] = nil
                    waiter.continuation.resume(throwing: BlobStoreError(.network, "The proxy is stopping."))
                }
            }
            let now = MonotonicInstant.now
            if now.nanoseconds &- lastSweep.nanoseconds >= Self.sweepMilliseconds * 1_000_000 {
                lastSweep = now
                sweep(at: now)
            }
        }
        for connection in Array(held.values) { remove(connection) }
        for (_, waiter) in waiting {
            waiter.continuation.resume(throwing: BlobStoreError(.network, "The proxy stopped."))
        }
        waiting = [:]
        for turn in turns { turn.resume(throwing: BlobStoreError(.network, "The proxy stopped.")) }
        turns = []
        runJobs()
        handler.periodically()
        origins.closeAll()
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

    /// Gives the loop `connection` to hold until its next request; from any thread. After
    /// ``finish()``, closes it.
    func hold(_ connection: WireConnection) {
        if isLoopThread {
            connection.loop = self
            return add(connection)
        }
        let accepted = incoming.withLock { incoming -> Bool in
            guard incoming != nil else { return false }
            incoming!.connections.append(connection)
            ProxySyscalls.signalWake(wake)
            return true
        }
        if !accepted { connection.close() }
    }

    /// Ends the loop: it closes what it holds and returns from ``run(_:)``.
    func finish() {
        incoming.withLock { incoming in
            for connection in incoming?.connections ?? [] { connection.close() }
            incoming = nil
            ProxySyscalls.signalWake(wake)
        }
    }

    /// Wakes the loop so that it looks at ``Handler/stopping`` now.
    func poke() {
        incoming.withLock { incoming in if incoming != nil { ProxySyscalls.signalWake(wake) } }
    }

    /// Runs `work` as a task on this loop; from any thread.
    func spawn(_ work: @escaping @Sendable () async -> Void) {
        Task(executorPreference: self) { await work() }
    }

    // MARK: - Tasks

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isLoopThread { return jobs.append(job) }
        incoming.withLock { incoming in
            // A job for a loop that has ended is dropped: its task waited for a socket that closed.
            guard incoming != nil else { return }
            incoming!.jobs.append(job)
            ProxySyscalls.signalWake(wake)
        }
    }

    /// Suspends the calling task, which runs on this loop, until `connection`'s socket reports
    /// bytes (or its end, or a failure), or room to write when `writable`. The caller has found
    /// the socket empty (or full) since the last report: each is reported once. A task that
    /// waits for the next request of a connection it holds between requests says so
    /// (`awaitingRequest`): the wait then also ends when the proxy stops.
    ///
    /// - Throws: `network` with `ETIMEDOUT` when `deadline` passes first; `network` when the
    ///   loop ends or cannot watch the socket, or, `awaitingRequest`, when the proxy stops.
    func ready(
        _ connection: WireConnection, writable: Bool, until deadline: MonotonicInstant,
        awaitingRequest: Bool = false
    ) async throws {
        precondition(isLoopThread, "a connection's task runs on its loop")
        guard follow(connection) else {
            throw BlobStoreError(.network, "The event loop cannot watch a socket.", errno: errno)
        }
        try await withUnsafeThrowingContinuation { continuation in
            // One task at a time uses a connection: a second waiter would orphan the first.
            assert(waiting[connection.fd] == nil, "two tasks wait on one connection")
            waiting[connection.fd] = Waiter(
                connection: connection, writable: writable, awaitingRequest: awaitingRequest, deadline: deadline,
                continuation: continuation)
        }
    }

    /// Suspends the calling task, which runs on this loop, until the loop has waited for its
    /// sockets again and seen to those ready meanwhile: a task that answers request after request
    /// without waiting for a socket lets the loop's other connections have a turn. (`Task.yield()`
    /// would queue the task to run again before the loop waits.)
    ///
    /// - Throws: `network` when the loop ends first.
    func yieldTurn() async throws {
        precondition(isLoopThread, "a task yields its own loop")
        try await withUnsafeThrowingContinuation { turns.append($0) }
    }

    /// What was reported on `fd` since its connection last read it, while nobody waited to read
    /// it (bytes, their end, an error); the report is taken. On the loop's thread.
    func claimArrival(_ fd: CInt) -> ProxySyscalls.Readiness? {
        arrivals.isEmpty ? nil : arrivals.removeValue(forKey: fd)
    }

    /// Runs `work` on the loop's thread once `deadline` has passed (within the sweep interval).
    func at(_ deadline: MonotonicInstant, _ work: @escaping () -> Void) {
        precondition(isLoopThread, "a timer is set on its loop")
        timers.append((deadline, work))
    }

    private var isLoopThread: Bool {
        let thread = thread.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(pthread_t(thread), pthread_self()) != 0
    }

    private func runJobs() {
        while !jobs.isEmpty {
            swap(&jobs, &running)
            for job in running { job.runSynchronously(on: asUnownedTaskExecutor()) }
            running.removeAll(keepingCapacity: true)
        }
    }

    /// Calls the handler's ``Handler/periodically`` (the access log's flush), closes the held
    /// connections past their timeouts, fails the waits past their deadlines and runs the timers
    /// due.
    private func sweep(at now: MonotonicInstant) {
        handler.periodically()
        for connection in Array(held.values) where handler.expired(connection, now) { remove(connection) }
        for (fd, waiter) in waiting where waiter.deadline <= now {
            waiting[fd] = nil
            waiter.continuation.resume(throwing: BlobStoreError(.network, "Nothing arrived in time.", errno: ETIMEDOUT))
        }
        if timers.contains(where: { $0.deadline <= now }) {
            let due = timers.filter { $0.deadline <= now }
            timers.removeAll { $0.deadline <= now }
            for timer in due { timer.work() }
        }
    }

    /// What `epoll` reported of `fd`: a held connection with bytes is decided, a waiting task
    /// whose wait is met resumes, and bytes nobody waited for are noted (``arrivals``).
    private func report(_ readiness: ProxySyscalls.Readiness, of fd: CInt) {
        if let connection = held[fd] {
            guard readiness.readable else { return }
            connection.reported(readiness)
            return decide(handler.readable(connection, self), for: connection)
        }
        guard let waiter = waiting[fd] else {
            if readiness.readable {
                arrivals[fd] = ProxySyscalls.Readiness(mask: readiness.mask | (arrivals[fd]?.mask ?? 0))
            }
            return
        }
        waiter.connection.reported(readiness)
        guard waiter.writable ? readiness.writable : readiness.readable else { return }
        waiting[fd] = nil
        waiter.continuation.resume()
    }

    /// Puts `connection`'s socket in the `epoll` set unless it is there already.
    ///
    /// - Returns: `false` when the kernel refused it.
    private func follow(_ connection: WireConnection) -> Bool {
        guard !connection.isFollowed else { return true }
        guard ProxySyscalls.follow(epoll, connection.fd) else { return false }
        // A report left by an earlier socket with this number is not about this one (which the
        // kernel reports at once if it has bytes).
        arrivals[connection.fd] = nil
        connection.isFollowed = true
        return true
    }

    private func add(_ connection: WireConnection) {
        if handler.stopping() { return connection.close() }
        guard follow(connection) else { return connection.close() }
        held[connection.fd] = connection
        connection.loop = self
        connection.waitingSince = .now
        // Bytes may be buffered already, or have arrived while a task had the connection.
        if connection.hasBufferedBytes || connection.mayHaveBytes || arrivals[connection.fd] != nil {
            decide(handler.readable(connection, self), for: connection)
        }
    }

    private func decide(_ decision: Decision, for connection: WireConnection) {
        switch decision {
        case .keep:
            if connection.mayHaveBytes { again.append(connection) }
        case .close: remove(connection)
        case .handOff(let work):
            held[connection.fd] = nil
            spawn(work)
        }
    }

    /// Closes a held connection (which takes its socket out of the `epoll` set).
    private func remove(_ connection: WireConnection) {
        held[connection.fd] = nil
        connection.close()
    }
}
