import BlobStore
import BlobStoreNet
import Foundation

/// A Redis Cluster as the remote tier: the same objects as ``RedisBackend``
/// (`<prefix>:cas:<sha256>`, `<prefix>:ac:<sha256 of the key>`, with `EXISTS`, `GET`, `SET` and
/// `DEL`), each on the master of its hash slot.
///
/// The cluster is found from its seeds, any of its nodes: the slot map comes from
/// `CLUSTER SHARDS` (or `CLUSTER SLOTS`), and follows the cluster as it changes: `-MOVED`
/// redirections update it, `-ASK` redirections are followed during a migration, and a master that
/// cannot be reached makes the client ask for the map again and send the command to the master
/// that took over, if one did. `-CLUSTERDOWN`, `-TRYAGAIN`, a dead node without a successor and
/// every other failure are remote errors, which ``TieredStore`` counts and answers with its
/// cool-down, never with a failed local operation. Reads and writes go to masters only: a replica
/// lags its master, and a record read there could name a blob it does not have yet.
///
/// Every node is logged in with the seeds' user and password (`AUTH`); a cluster has database 0
/// only. With seeds that use TLS (`rediss+cluster://`), every node is reached over TLS, on the
/// `tls-port` the topology reports, its certificate checked for the host the topology names
/// (an IP address, unless the nodes announce host names). Each node's connections are pooled: at most ``maximumConnectionsPerNode`` in use at a
/// time, 4 kept open between operations.
public final class RedisClusterBackend: RemoteBackend {
    /// Nodes the cluster is first asked about; the others are found from them.
    public let seeds: [RedisServer]
    /// The first part of every key name. (default: `blobstore`)
    public let prefix: String
    /// How long Redis keeps an object after it is written (`SET … EX`); `nil` keeps it until
    /// Redis evicts it.
    public let timeToLive: Duration?
    /// The largest value sent or accepted, below Redis' 512 MiB limit.
    public let maximumValueSize: Int
    /// The connect, per-command and name resolution timeouts.
    public let timeouts: RemoteTimeouts
    /// The CAs trusted for the nodes, when the seeds use TLS.
    public let tls: RemoteTLS
    /// The most connections to one node in use at a time.
    public let maximumConnectionsPerNode: Int
    private let routing: ClusterRouting
    private let commands: RedisCommands<ClusterRouting>

    /// - Parameters:
    ///   - seeds: One or more nodes of the cluster, with the user and password for every node
    ///     (those of the first seed).
    ///   - prefix: The first part of every key name. A hash tag in it (`{fleet}`) would put
    ///     every object on one master.
    ///   - timeToLive: An expiry for every object written, in whole seconds; `nil` for none.
    ///   - maximumValueSize: The largest value sent or accepted; clamped below 512 MiB.
    ///   - timeouts: The connect, per-command and name resolution timeouts.
    ///   - maximumConnectionsPerNode: The most connections to one node in use at a time; an
    ///     operation that finds them all busy waits for one, up to the operation timeout.
    ///   - tls: The CAs trusted for the nodes, when the seeds use TLS (``RedisServer/usesTLS``,
    ///     that of the first seed for every node).
    /// - Throws: `BlobStoreError` with code `invalidArgument` for no seed, an empty prefix, a
    ///   seed with a database other than 0, or a CA file that cannot be read.
    public convenience init(
        seeds: [RedisServer], prefix: String = "blobstore", timeToLive: Duration? = nil,
        maximumValueSize: Int = 64 << 20, timeouts: RemoteTimeouts = RemoteTimeouts(),
        maximumConnectionsPerNode: Int = 16, tls: RemoteTLS = RemoteTLS()
    ) throws {
        try self.init(
            seeds: seeds, prefix: prefix, timeToLive: timeToLive, maximumValueSize: maximumValueSize,
            timeouts: timeouts, maximumConnectionsPerNode: maximumConnectionsPerNode, tls: tls, resolver: .system)
    }

    /// With the resolver of the nodes' names (tests pass one that stalls).
    init(
        seeds: [RedisServer], prefix: String, timeToLive: Duration?, maximumValueSize: Int, timeouts: RemoteTimeouts,
        maximumConnectionsPerNode: Int, tls: RemoteTLS = RemoteTLS(), resolver: NameResolver
    ) throws {
        guard !seeds.isEmpty else {
            throw BlobStoreError(.invalidArgument, "A Redis Cluster remote needs at least one seed node.")
        }
        guard !prefix.isEmpty else {
            throw BlobStoreError(.invalidArgument, "The Redis key prefix must not be empty.")
        }
        guard seeds.allSatisfy({ $0.database == 0 }) else {
            throw BlobStoreError(.invalidArgument, "A Redis Cluster has database 0 only.")
        }
        self.seeds = seeds
        self.prefix = prefix
        self.timeToLive = timeToLive
        self.maximumValueSize = max(0, min(maximumValueSize, RedisBackend.redisValueLimit - (1 << 10)))
        self.timeouts = timeouts
        self.tls = tls
        self.maximumConnectionsPerNode = max(1, maximumConnectionsPerNode)
        let usesTLS = seeds[0].usesTLS
        let name =
            (usesTLS ? "rediss+cluster://" : "redis+cluster://")
            + seeds.map { ClusterNode(host: $0.host, port: $0.port).description }
            .joined(separator: ",")
        routing = ClusterRouting(
            seeds: seeds, name: name, timeouts: timeouts, maximumConnectionsPerNode: self.maximumConnectionsPerNode,
            resolver: resolver, tls: usesTLS ? try TLSContext(tls) : nil)
        commands = RedisCommands(
            routing: routing, prefix: prefix, timeToLive: timeToLive, maximumValueSize: self.maximumValueSize)
    }

    /// `redis+cluster://host:port,…` (`rediss+cluster://` with TLS): the seeds, without
    /// credentials.
    public var name: String { routing.name }

    /// The redirections followed and the maps fetched so far.
    public var statistics: RedisClusterStatistics { routing.statistics }

    /// The slot map as it is now (tests).
    var topology: ClusterTopology? { routing.topology }

    // MARK: - RemoteBackend

    /// `EXISTS <prefix>:cas:<hex>` on the master of its slot.
    public func containsBlob(_ digest: SHA256Digest) throws -> Bool { try commands.containsBlob(digest) }

    /// `GET <prefix>:cas:<hex>`; a null reply is `nil`.
    public func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try commands.blob(digest, maximumSize: maximumSize)
    }

    /// `SET <prefix>:cas:<hex>`, with `EX` when there is a TTL.
    public func putBlob(_ data: Data, digest: SHA256Digest) throws { try commands.putBlob(data, digest: digest) }

    /// `GET <prefix>:ac:<hex>`; a null reply is `nil`.
    public func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try commands.record(keyDigest, maximumSize: maximumSize)
    }

    /// `SET <prefix>:ac:<hex>`, with `EX` when there is a TTL.
    public func putRecord(_ record: Data, keyDigest: SHA256Digest) throws {
        try commands.putRecord(record, keyDigest: keyDigest)
    }

    /// `DEL <prefix>:ac:<hex>`.
    public func removeRecord(_ keyDigest: SHA256Digest) throws { try commands.removeRecord(keyDigest) }

    /// Fetches the topology again, then sends a `PING` to every master and replica it names,
    /// masters first; when no node answers with a topology and none was fetched before, reports
    /// each seed (role `seed`) with the reason.
    public func ping() -> [RemoteNodeStatus] { routing.ping() }
}
