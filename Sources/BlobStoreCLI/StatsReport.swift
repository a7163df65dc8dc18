import BlobStore
import BlobStoreRemote

/// `stats --json`: the store's statistics, under `chunks` its chunked values' counts, and under
/// `remote` the remote counters when shown.
struct StatsReport: Encodable {
    let store: StoreStats
    let chunks: ChunkStats
    let remote: RemoteStats?

    private enum Key: String, CodingKey { case chunks, remote }

    func encode(to encoder: any Encoder) throws {
        try store.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(chunks, forKey: .chunks)
        try container.encodeIfPresent(remote, forKey: .remote)
    }
}
