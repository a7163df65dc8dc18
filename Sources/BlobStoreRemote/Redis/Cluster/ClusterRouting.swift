import BlobStore
import BlobStoreNet
import Foundation
import Synchronization

/// Sends each command to the master of its key's hash slot, as the Redis Cluster specification
/// asks of a client (https://redis.io/docs/reference/cluster-spec/, "Redirection and
/// resharding"):
///
/// - The slot map comes from `CLUSTER SHARDS` (`CLUSTER SLOTS` where that is unknown), asked of
///   the nodes it knows and then the seeds, one after another, until one answers with a map that
///   serves at least one slot (at most ``maximumRefreshAttempts`` nodes, and none more once the
///   operation timeout has passed). It is fetched before the first command and again, at most
///   every ``refreshInterval``, after anything that shows it is out of date.
/// - `-MOVED` gives the slot to the node it names at once, and the map is refreshed later;
///   `-ASK` sends that one command to the node it names after `ASKING`. At most
///   ``maximumRedirections`` in a row, then a remote error.
/// - `-CLUSTERDOWN`, `-TRYAGAIN`, `-MASTERDOWN`, `-LOADING` are remote errors.
/// - A master that cannot be reached (refused, timed out) is a remote error too, after one try:
///   the map is refreshed at once and, if it names another master for the slot (a replica took
///   over), the command goes there (it was never sent to the first).
///
/// Every node gets one ``RedisConnectionPool``, logged in with the seeds' user and password.
final class ClusterRouting: RedisRouting {
    /// Redirections followed for one command before giving up.
    static let maximumRedirections = 5
    /// The least time between two refreshes of the map that a redirection or an error asks for.
    static let refreshInterval: Duration = .milliseconds(100)
    /// The most nodes asked for the map in one refresh.
    static let maximumRefreshAttempts = 8

    let seeds: [ClusterNode]
    /// The backend's name, for messages.
    let name: String
    private let user: String?
    private let password: String?
    /// Whether every node is reached over TLS (`rediss+cluster://`), with these settings.
    private let usesTLS: Bool
    private let tls: TLSContext?
    private let timeouts: RemoteTimeouts
    private let maximumConnectionsPerNode: Int
    private let resolver: NameResolver
    private let state = Mutex(State())
    /// Held by the one refresh that runs at a time.
    private let refreshing = Mutex(())

    private struct State {
        var topology: ClusterTopology?
        /// Whether something showed the map out of date since the last refresh.
        var stale = true
        var lastRefresh: ContinuousClock.Instant?
        /// Why the last refresh failed, for the error of a command that has no map.
        var refreshError: BlobStoreError?
        /// Whether a node answered that it does not know `CLUSTER SHARDS` (before Redis 7).
        var shardsUnknown = false
        var pools: [ClusterNode: RedisConnectionPool] = [:]
        var statistics = RedisClusterStatistics()
    }

    init(
        seeds: [RedisServer], name: String, timeouts: RemoteTimeouts, maximumConnectionsPerNode: Int,
        resolver: NameResolver, tls: TLSContext? = nil
    ) {
        self.seeds = seeds.map { ClusterNode(host: $0.host, port: $0.port) }
        self.name = name
        user = seeds.first?.user
        password = seeds.first?.password
        usesTLS = seeds.first?.usesTLS ?? false
        self.tls = tls
        self.timeouts = timeouts
        self.maximumConnectionsPerNode = maximumConnectionsPerNode
        self.resolver = resolver
    }

    var statistics: RedisClusterStatistics { state.withLock { $0.statistics } }

    /// The map as it is now, or `nil` before the first refresh (tests).
    var topology: ClusterTopology? { state.withLock { $0.topology } }

    // MARK: - Routing

    /// What a node's reply to a command turned out to be.
    private enum Outcome<R> {
        case done(R)
        case redirected(ClusterErrorReply)
    }

    func perform<R>(
        _ arguments: [Data], on key: String, limits: RESPLimits, _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        let slot = HashSlot.slot(of: key.utf8)
        var node = try master(forSlot: slot)
        var asking = false
        var redirections = 0
        var triedAnotherMaster = false
        while true {
            let outcome: Outcome<R>
            do {
                outcome = try pool(for: node).perform(arguments, limits: limits, asking: asking) {
                    reply, connection in
                    if case .error(let message) = reply, let cluster = ClusterErrorReply(message, answeredBy: node) {
                        return .redirected(cluster)
                    }
                    return .done(try body(reply, connection))
                }
            } catch let unreachable as RedisConnectionPool.Unreachable {
                markStale()
                // A master that failed: once a replica took over, the map names it.
                guard !asking, !triedAnotherMaster, refresh(urgently: true),
                    let next = state.withLock({ $0.topology?.master(forSlot: slot) }), next != node
                else { throw unreachable.error }
                triedAnotherMaster = true
                count { $0.retriesOnAnotherMaster += 1 }
                node = next
                continue
            } catch let error as BlobStoreError where error.code == .remote {
                markStale()
                throw error
            }
            switch outcome {
            case .done(let result):
                return result
            case .redirected(.moved(let movedSlot, let target)):
                state.withLock { state in
                    state.topology?.assign(movedSlot, to: target)
                    state.stale = true
                    state.statistics.movedRedirections += 1
                }
                node = target
                asking = false
            case .redirected(.ask(_, let target)):
                count { $0.askRedirections += 1 }
                node = target
                asking = true
            case .redirected(.unavailable(let message)):
                markStale()
                throw BlobStoreError.remote(name, "the cluster cannot serve slot \(slot) now (\(node)): \(message).")
            }
            redirections += 1
            guard redirections <= Self.maximumRedirections else {
                throw BlobStoreError.remote(
                    name, "more than \(Self.maximumRedirections) redirections for slot \(slot); the last to \(node).")
            }
        }
    }

    /// The master of `slot`, refreshing the map first when it is out of date.
    private func master(forSlot slot: Int) throws -> ClusterNode {
        if state.withLock({ $0.stale }) { refresh(urgently: false) }
        let (topology, refreshError) = state.withLock { ($0.topology, $0.refreshError) }
        guard let topology else {
            throw refreshError ?? BlobStoreError.remote(name, "no node answered with the cluster's slots.")
        }
        guard let master = topology.master(forSlot: slot) else {
            markStale()
            throw BlobStoreError.remote(name, "no master serves slot \(slot).")
        }
        return master
    }

    private func markStale() { state.withLock { $0.stale = true } }

    private func count(_ change: (inout RedisClusterStatistics) -> Void) {
        state.withLock { change(&$0.statistics) }
    }

    /// The pool of `node`'s connections, made on first use.
    private func pool(for node: ClusterNode) -> RedisConnectionPool {
        state.withLock { state in
            if let pool = state.pools[node] { return pool }
            let pool = RedisConnectionPool(
                RedisServer(host: node.host, port: node.port, user: user, password: password, usesTLS: usesTLS),
                timeouts: timeouts, maximumOpen: maximumConnectionsPerNode,
                maximumIdle: min(4, maximumConnectionsPerNode), resolver: resolver, tls: tls)
            state.pools[node] = pool
            return pool
        }
    }

    // MARK: - Ping

    /// A fresh map (or, when no node gives one, the last), then one `PING` to each node it names,
    /// masters first; the seeds with the refresh's error when there is no map at all.
    func ping() -> [RemoteNodeStatus] {
        refresh(urgently: true)
        let (topology, refreshError) = state.withLock { ($0.topology, $0.refreshError) }
        guard let topology else {
            let error = refreshError ?? BlobStoreError.remote(name, "no node answered with the cluster's slots.")
            return seeds.map { seed in
                RemoteNodeStatus(
                    node: RedisServer(host: seed.host, port: seed.port, usesTLS: usesTLS).description, role: .seed,
                    latency: nil,
                    error: error)
            }
        }
        let masters = Set(topology.masters)
        return topology.nodes.map { node in
            pool(for: node).ping(role: masters.contains(node) ? .master : .replica)
        }
    }

    // MARK: - The map

    /// Fetches the map, unless another refresh runs (then the map as it is serves, unless there
    /// is none yet: then this waits for that refresh) or, when not `urgently`, the last one is
    /// less than ``refreshInterval`` old.
    ///
    /// - Returns: Whether this call replaced the map.
    @discardableResult
    private func refresh(urgently: Bool) -> Bool {
        if state.withLock({ $0.topology != nil }) {
            return refreshing.withLockIfAvailable { _ in refreshNow(urgently: urgently) } ?? false
        }
        return refreshing.withLock { _ in
            state.withLock { $0.topology == nil } ? refreshNow(urgently: true) : true
        }
    }

    private func refreshNow(urgently: Bool) -> Bool {
        let (known, lastRefresh) = state.withLock { ($0.topology?.nodes ?? [], $0.lastRefresh) }
        if !urgently, let lastRefresh, ContinuousClock.now - lastRefresh < Self.refreshInterval { return false }
        // The nodes of the map, masters first, then the seeds; each once.
        var seen = Set<ClusterNode>()
        let candidates = (known + seeds).filter { seen.insert($0).inserted }.prefix(Self.maximumRefreshAttempts)
        // Nodes that accept and then hang cost an operation timeout each: once one has passed,
        // no more are asked, so that a refresh costs about two at most.
        let deadline = ContinuousClock.now + timeouts.operation
        var lastError: BlobStoreError?
        for node in candidates where lastError == nil || ContinuousClock.now < deadline {
            do {
                let topology = try fetchTopology(from: node)
                guard topology.servedSlots > 0 else {
                    lastError = BlobStoreError.remote(name, "\(node) answered a map that serves no slot.")
                    continue
                }
                install(topology)
                return true
            } catch let unreachable as RedisConnectionPool.Unreachable {
                lastError = unreachable.error
            } catch let error as BlobStoreError {
                lastError = error
            } catch {
                lastError = BlobStoreError.remote(name, "\(error)")
            }
        }
        state.withLock { state in
            state.lastRefresh = .now
            state.refreshError = lastError
            state.statistics.failedRefreshes += 1
        }
        return false
    }

    /// `CLUSTER SHARDS`, or `CLUSTER SLOTS` on a node that does not know it, parsed.
    private func fetchTopology(from node: ClusterNode) throws -> ClusterTopology {
        let pool = pool(for: node)
        if !state.withLock({ $0.shardsUnknown }) {
            let shards = try pool.perform(
                ["CLUSTER", "SHARDS"].map { Data($0.utf8) }, limits: ClusterTopology.replyLimits
            ) { reply, connection -> ClusterTopology? in
                if case .error(let message) = reply, message.hasPrefix("ERR unknown subcommand") { return nil }
                return try Self.topology(reply, from: node, connection) {
                    try ClusterTopology(shardsReply: $0, askedHost: node.host, usesTLS: usesTLS)
                }
            }
            if let shards { return shards }
            state.withLock { $0.shardsUnknown = true }
        }
        return try pool.perform(["CLUSTER", "SLOTS"].map { Data($0.utf8) }, limits: ClusterTopology.replyLimits) {
            reply, connection in
            try Self.topology(reply, from: node, connection) {
                try ClusterTopology(slotsReply: $0, askedHost: node.host)
            }
        }
    }

    /// What `parse` makes of `reply`, or a remote error that says why not.
    private static func topology(
        _ reply: RESPValue, from node: ClusterNode, _ connection: RedisConnection,
        _ parse: (RESPValue) throws -> ClusterTopology
    ) throws -> ClusterTopology {
        if case .error(let message) = reply {
            let hint =
                message.contains("cluster support disabled") ? " Use redis:// for a server that is not a cluster." : ""
            throw BlobStoreError.remote(connection.server.description, "CLUSTER failed: \(message.prefix(200)).\(hint)")
        }
        do {
            return try parse(reply)
        } catch let malformed as ClusterTopology.Malformed {
            throw BlobStoreError.remote(
                connection.server.description, "the cluster's map is not one: \(malformed.description.prefix(200)).")
        }
    }

    /// Makes `topology` the map, and closes the idle connections of nodes no longer in it.
    private func install(_ topology: ClusterTopology) {
        let members = Set(topology.nodes + seeds)
        let gone = state.withLock { state -> [RedisConnectionPool] in
            state.topology = topology
            state.stale = false
            state.lastRefresh = .now
            state.refreshError = nil
            state.statistics.topologyRefreshes += 1
            let gone = state.pools.filter { !members.contains($0.key) }
            for node in gone.keys { state.pools[node] = nil }
            return Array(gone.values)
        }
        for pool in gone { pool.closeIdle() }
    }
}
