import BlobStore
import Foundation
import Synchronization

/// A Redis (or Valkey, KeyDB) remote tier, as ccache's `redis://` storage: blobs under
/// `<prefix>:cas:<sha256>`, records under `<prefix>:ac:<sha256 of the key>`, with `EXISTS`,
/// `GET` and `SET` over a small RESP2 client.
///
/// With several ``RedisServer``s, each object lives on the one chosen by rendezvous hashing of
/// its name, so every client finds it there. Redis evicts by itself when configured with
/// `maxmemory` and `maxmemory-policy allkeys-lru`; a record whose blob was evicted is a miss.
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
    /// Idle connections, per shard.
    private let idle: Mutex<[[RedisConnection]]>
    /// Resolves the servers' host names.
    private let resolver: NameResolver

    /// - Parameters:
    ///   - shards: One or more servers; objects are spread over them by rendezvous hashing.
    ///   - prefix: The first part of every key name.
    ///   - timeToLive: An expiry for every object written, in whole seconds; `nil` for none.
    ///   - maximumValueSize: The largest value sent or accepted; clamped below 512 MiB.
    ///   - timeouts: The connect and per-command timeouts.
    /// - Throws: ``BlobStoreError/Code/invalidArgument`` for no server or an empty prefix.
    public convenience init(
        shards: [RedisServer], prefix: String = "blobstore", timeToLive: Duration? = nil,
        maximumValueSize: Int = 64 << 20, timeouts: RemoteTimeouts = RemoteTimeouts()
    ) throws {
        try self.init(
            shards: shards, prefix: prefix, timeToLive: timeToLive, maximumValueSize: maximumValueSize,
            timeouts: timeouts, resolver: .system)
    }

    /// With the resolver of the servers' names (tests pass one that stalls).
    init(
        shards: [RedisServer], prefix: String, timeToLive: Duration?, maximumValueSize: Int, timeouts: RemoteTimeouts,
        resolver: NameResolver
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
        idle = Mutex(shards.map { _ in [] })
        self.resolver = resolver
    }

    /// A single server.
    public convenience init(
        server: RedisServer, prefix: String = "blobstore", timeouts: RemoteTimeouts = RemoteTimeouts()
    )
        throws
    {
        try self.init(shards: [server], prefix: prefix, timeouts: timeouts)
    }

    /// `redis://host:port`, comma-separated for shards.
    public var name: String { shards.map(\.description).joined(separator: ",") }

    // MARK: - RemoteBackend

    /// `EXISTS <prefix>:cas:<hex>`.
    public func containsBlob(_ digest: SHA256Digest) throws -> Bool {
        try exists(key(for: "cas", digest))
    }

    /// `GET <prefix>:cas:<hex>`; a null reply is `nil`.
    public func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get(key(for: "cas", digest), maximumSize: maximumSize)
    }

    /// `SET <prefix>:cas:<hex>`, with `EX` when there is a TTL.
    public func putBlob(_ data: Data, digest: SHA256Digest) throws {
        try set(key(for: "cas", digest), data)
    }

    /// `GET <prefix>:ac:<hex>`; a null reply is `nil`.
    public func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get(key(for: "ac", keyDigest), maximumSize: maximumSize)
    }

    /// `SET <prefix>:ac:<hex>`, with `EX` when there is a TTL.
    public func putRecord(_ record: Data, keyDigest: SHA256Digest) throws {
        try set(key(for: "ac", keyDigest), record)
    }

    /// `DEL <prefix>:ac:<hex>`.
    public func removeRecord(_ keyDigest: SHA256Digest) throws {
        let key = key(for: "ac", keyDigest)
        try perform([Data("DEL".utf8), Data(key.utf8)], on: key, maximumBulk: 0) { reply, connection in
            guard case .integer = reply else { throw connection.unexpected(reply, to: "DEL") }
        }
    }

    // MARK: - Commands

    /// `<prefix>:<kind>:<hex>`.
    func key(for kind: String, _ digest: SHA256Digest) -> String { "\(prefix):\(kind):\(digest.hex)" }

    /// The index in ``shards`` of the server that holds `key`.
    public func shardIndex(for key: String) -> Int {
        RendezvousHashing.shard(for: key, among: shards.map(\.description))
    }

    private func exists(_ key: String) throws -> Bool {
        try perform([Data("EXISTS".utf8), Data(key.utf8)], on: key, maximumBulk: 0) { reply, connection in
            guard case .integer(let count) = reply else { throw connection.unexpected(reply, to: "EXISTS") }
            return count > 0
        }
    }

    private func get(_ key: String, maximumSize: Int) throws -> Data? {
        let limit = min(maximumSize, maximumValueSize)
        return try perform([Data("GET".utf8), Data(key.utf8)], on: key, maximumBulk: limit) { reply, connection in
            guard case .bulk(let value) = reply else { throw connection.unexpected(reply, to: "GET") }
            return value
        }
    }

    private func set(_ key: String, _ value: Data) throws {
        guard value.count <= maximumValueSize else {
            throw BlobStoreError(
                .tooLarge, "A value of \(value.count) bytes is larger than the Redis remote's \(maximumValueSize).")
        }
        var arguments = [Data("SET".utf8), Data(key.utf8), value]
        if let timeToLive {
            let seconds = max(1, timeToLive.components.seconds)
            arguments += [Data("EX".utf8), Data("\(seconds)".utf8)]
        }
        try perform(arguments, on: key, maximumBulk: 0) { reply, connection in
            guard case .simple("OK") = reply else { throw connection.unexpected(reply, to: "SET") }
        }
    }

    /// Runs one command on the shard that holds `key` and reads its reply with `body`.
    ///
    /// An idle connection is reused. When the server had closed it (reset, broken pipe or end of
    /// stream before the first byte of the reply: it restarted, or dropped idle clients), the
    /// command is sent once more on a new connection; after any other failure (a timeout, an
    /// error reply, a reply that is not the protocol) it is not, since the server may have run
    /// it. A connection goes back to the pool only after a complete reply: an expected one, or a
    /// Redis error reply.
    private func perform<R>(
        _ arguments: [Data], on key: String, maximumBulk: Int, _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        let index = shardIndex(for: key)
        if let pooled = idle.withLock({ $0[index].popLast() }) {
            do {
                return try exchange(arguments, pooled, index: index, maximumBulk: maximumBulk, body)
            } catch let error where pooled.failedBeforeReply(error) {
                // Stale: fall through to a new connection.
            }
        }
        let connection = try RedisConnection(shards[index], timeouts: timeouts, resolver: resolver)
        return try exchange(arguments, connection, index: index, maximumBulk: maximumBulk, body)
    }

    private func exchange<R>(
        _ arguments: [Data], _ connection: RedisConnection, index: Int, maximumBulk: Int,
        _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R {
        let reply: RESPValue
        do {
            reply = try connection.command(arguments, maximumBulk: maximumBulk, timeout: timeouts.operation)
        } catch {
            connection.close()
            throw error
        }
        if case .error = reply {
            // A complete error reply (`-OOM …`): the connection itself is fine.
            release(connection, index: index)
            throw connection.unexpected(reply, to: String(decoding: arguments.first ?? Data(), as: UTF8.self))
        }
        do {
            let result = try body(reply, connection)
            release(connection, index: index)
            return result
        } catch {
            connection.close()
            throw error
        }
    }

    /// Puts `connection` back in the pool of shard `index` (at most 4 idle per shard).
    private func release(_ connection: RedisConnection, index: Int) {
        let kept = idle.withLock { connections in
            guard connections[index].count < 4 else { return false }
            connections[index].append(connection)
            return true
        }
        if !kept { connection.close() }
    }
}
