import BlobStore
import Foundation

/// Sends a command to the server that holds a key: one of several shards (``RedisBackend``), or
/// the master of the key's slot in a cluster (``RedisClusterBackend``).
protocol RedisRouting: Sendable {
    /// Runs one command on the server that holds `key` and hands its reply to `body`; an error
    /// reply is handed over too, unless the routing acts on it (a cluster's redirections).
    func perform<R>(
        _ arguments: [Data], on key: String, limits: RESPLimits, _ body: (RESPValue, RedisConnection) throws -> R
    ) throws -> R
}

/// What a Redis remote sends, whatever routes it: the key names (`<prefix>:cas:<hex>` for blobs,
/// `<prefix>:ac:<hex>` for records), `EXISTS`, `GET`, `SET` (with `EX` for a TTL) and `DEL`, and
/// the replies each accepts. Every command names one key, so no two keys ever need to be on the
/// same server (or in the same cluster slot).
struct RedisCommands<Routing: RedisRouting>: Sendable {
    let routing: Routing
    let prefix: String
    let timeToLive: Duration?
    let maximumValueSize: Int

    /// `<prefix>:<kind>:<hex>`.
    func key(for kind: String, _ digest: SHA256Digest) -> String { "\(prefix):\(kind):\(digest.hex)" }

    func containsBlob(_ digest: SHA256Digest) throws -> Bool {
        try exists(key(for: "cas", digest))
    }

    func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get(key(for: "cas", digest), maximumSize: maximumSize)
    }

    func putBlob(_ data: Data, digest: SHA256Digest) throws {
        try set(key(for: "cas", digest), data)
    }

    func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get(key(for: "ac", keyDigest), maximumSize: maximumSize)
    }

    func putRecord(_ record: Data, keyDigest: SHA256Digest) throws {
        try set(key(for: "ac", keyDigest), record)
    }

    func removeRecord(_ keyDigest: SHA256Digest) throws {
        let key = key(for: "ac", keyDigest)
        try run(["DEL", key], on: key, maximumBulk: 0) { reply -> Void? in
            guard case .integer = reply else { return nil }
            return ()
        }
    }

    // MARK: - Commands

    private func exists(_ key: String) throws -> Bool {
        try run(["EXISTS", key], on: key, maximumBulk: 0) { reply in
            guard case .integer(let count) = reply else { return nil }
            return count > 0
        }
    }

    private func get(_ key: String, maximumSize: Int) throws -> Data? {
        try run(["GET", key], on: key, maximumBulk: min(maximumSize, maximumValueSize)) { reply -> Data?? in
            guard case .bulk(let value) = reply else { return nil }
            return .some(value)
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
        try run(arguments, on: key, maximumBulk: 0) { reply -> Void? in
            guard case .simple("OK") = reply else { return nil }
            return ()
        }
    }

    private func run<R>(_ words: [String], on key: String, maximumBulk: Int, _ accept: (RESPValue) -> R?) throws -> R {
        try run(words.map { Data($0.utf8) }, on: key, maximumBulk: maximumBulk, accept)
    }

    /// Runs the command; a reply `accept` turns down (an error reply, a type the command does
    /// not answer) is a remote error that quotes it.
    private func run<R>(_ arguments: [Data], on key: String, maximumBulk: Int, _ accept: (RESPValue) -> R?) throws
        -> R
    {
        try routing.perform(arguments, on: key, limits: RESPLimits(maximumBulk: maximumBulk)) { reply, connection in
            guard let result = accept(reply) else {
                throw connection.unexpected(reply, to: String(decoding: arguments[0], as: UTF8.self))
            }
            return result
        }
    }
}
