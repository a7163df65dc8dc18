import BlobStore
import BlobStoreRemote

/// `stats --json`: the store's statistics, and under `remote` the remote counters when shown.
struct StatsReport: Encodable {
    let store: StoreStats
    let remote: RemoteStats?

    private enum Key: String, CodingKey { case remote }

    func encode(to encoder: any Encoder) throws {
        try store.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(remote, forKey: .remote)
    }
}
