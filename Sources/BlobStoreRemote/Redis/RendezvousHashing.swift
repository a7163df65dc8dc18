import BlobStore

/// Highest-random-weight (rendezvous) hashing: each key goes to the shard with the highest
/// hash of (shard, key). Every client computes the same choice without talking to the others,
/// and adding or removing one shard moves only the keys that shard gains or held, as ccache
/// does for its Redis `shards`.
enum RendezvousHashing {
    /// The index of the shard that holds `key`.
    ///
    /// - Parameters:
    ///   - key: The object's name on the server.
    ///   - shards: The shards' stable names (their URLs); must not be empty.
    static func shard(for key: String, among shards: [String]) -> Int {
        var best = 0
        var bestWeight: UInt64 = 0
        for (index, shard) in shards.enumerated() {
            let weight = weight(shard, key)
            if index == 0 || weight > bestWeight {
                best = index
                bestWeight = weight
            }
        }
        return best
    }

    /// The first 8 bytes of SHA-256(shard NUL key), big-endian: the same on every machine.
    static func weight(_ shard: String, _ key: String) -> UInt64 {
        let digest = SHA256Hasher.hash(Array(shard.utf8) + [0] + Array(key.utf8))
        return digest.bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
