import BlobStore
import BlobStoreNet
import Foundation

/// A Redis (or Valkey, KeyDB) remote tier, as ccache's `redis://` storage: blobs under
/// `<prefix>:cas:<sha256>`, records under `<prefix>:ac:<sha256 of the key>`, with `EXISTS`,
/// `GET` and `SET` over a small RESP2 client.
///
/// With several ``RedisServer``s, each object lives on the one chosen by rendezvous hashing of
/// its name, so every client finds it there. Redis evicts by itself when configured with
/// `maxmemory` and `maxmemory-policy allkeys-lru`; a record whose blob was evicted is a miss.
/// Connections are pooled per server: at most 16 in use at a time (an operation waits for one,
/// up to the operation timeout), 4 kept open between operations.
public final class RedisBackend: RemoteBackend {
    /// Redis refuses strings over 512 MiB (`proto-max-bulk-len`); values stay below it.
    public static let redisValueLimit = 512 << 20

    /// The servers; each object lives on one of them.
    public let shards: [RedisServer]
    /// The first part of every key name. (default: `blobstore`)
    public let prefix: String
    /// How long Redis keeps an object after it is written (`SET … EX`); `nil` keeps it until
    /// Redis evicts it.
    public let timeToLive: Duration?
    /// The largest value sent or accepted, below Redis' 512 MiB limit.
    public let maximumValueSize: Int
    /// The connect and per-command timeouts.
    public let timeouts: RemoteTimeouts
    /// The CAs trusted for the servers with ``RedisServer/usesTLS`` (`rediss://`).
    public let tls: RemoteTLS
    /// The commands, sent to the shard of each key.
    private let commands: RedisCommands<ShardRouting>

    /// - Parameters:
    ///   - shards: One or more servers; objects are spread over them by rendezvous hashing.
    ///   - prefix: The first part of every key name.
    ///   - timeToLive: An expiry for every object written, in whole seconds; `nil` for none.
    ///   - maximumValueSize: The largest value sent or accepted; clamped below 512 MiB.
    ///   - timeouts: The connect and per-command timeouts; a TLS handshake is bounded by the
    ///     per-command timeout.
    ///   - tls: The CAs trusted for the servers with ``RedisServer/usesTLS``.
    /// - Throws: `BlobStoreError` with code `invalidArgument` for no server, an empty prefix, or
    ///   a CA file that cannot be read.
    public convenience init(
        shards: [RedisServer], prefix: String = "blobstore", timeToLive: Duration? = nil,
        maximumValueSize: Int = 64 << 20, timeouts: RemoteTimeouts = RemoteTimeouts(), tls: RemoteTLS = RemoteTLS()
    ) throws {
        try self.init(
            shards: shards, prefix: prefix, timeToLive: timeToLive, maximumValueSize: maximumValueSize,
            timeouts: timeouts, tls: tls, resolver: .system)
    }

    /// With the resolver of the servers' names (tests pass one that stalls).
    init(
        shards: [RedisServer], prefix: String, timeToLive: Duration?, maximumValueSize: Int, timeouts: RemoteTimeouts,
        tls: RemoteTLS = RemoteTLS(), resolver: NameResolver
    ) throws {
        guard !shards.isEmpty else {
            throw BlobStoreError(.invalidArgument, "A Redis remote needs at least one server.")
        }
        guard !prefix.isEmpty else {
            throw BlobStoreError(.invalidArgument, "The Redis key prefix must not be empty.")
        }
        self.shards = shards
        self.prefix = prefix
        self.timeToLive = timeToLive
        self.maximumValueSize = max(0, min(maximumValueSize, Self.redisValueLimit - (1 << 10)))
        self.timeouts = timeouts
        self.tls = tls
        let context = try shards.contains(where: \.usesTLS) ? TLSContext(tls) : nil
        let routing = ShardRouting(
            pools: shards.map { RedisConnectionPool($0, timeouts: timeouts, resolver: resolver, tls: context) },
            names: shards.map(\.description))
        commands = RedisCommands(
            routing: routing, prefix: prefix, timeToLive: timeToLive, maximumValueSize: self.maximumValueSize)
    }

    /// A single server.
    public convenience init(
        server: RedisServer, prefix: String = "blobstore", timeouts: RemoteTimeouts = RemoteTimeouts(),
        tls: RemoteTLS = RemoteTLS()
    ) throws {
        try self.init(shards: [server], prefix: prefix, timeouts: timeouts, tls: tls)
    }

    /// `redis://host:port` (`rediss://` with TLS), comma-separated for shards.
    public var name: String { shards.map(\.description).joined(separator: ",") }

    // MARK: - RemoteBackend

    /// `EXISTS <prefix>:cas:<hex>`.
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

    /// A `PING` to each shard, in the order of ``shards``, each a `server`.
    public func ping() -> [RemoteNodeStatus] { commands.routing.pools.map { $0.ping(role: .server) } }

    // MARK: - Sharding

    /// The index in ``shards`` of the server that holds `key`.
    public func shardIndex(for key: String) -> Int {
        RendezvousHashing.shard(for: key, among: shards.map(\.description))
    }
}

/// Each key on the shard rendezvous hashing of its name picks, through that shard's pool (at
/// most 16 connections in use, 4 kept idle).
struct ShardRouting: RedisRouting {
    let pools: [RedisConnectionPool]
    /// The shards' stable names (their URLs), for the hashing.
    let names: [String]

    func perform<R>(
        _ arguments: [Data], on key: String, limits: RESPLimits, _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        do {
            return try pools[RendezvousHashing.shard(for: key, among: names)].perform(arguments, limits: limits, body)
        } catch let unreachable as RedisConnectionPool.Unreachable {
            throw unreachable.error
        }
    }
}
