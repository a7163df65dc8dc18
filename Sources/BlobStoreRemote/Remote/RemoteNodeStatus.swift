import BlobStore

/// One server or cluster node of a remote, as ``RemoteBackend/ping()`` found it: its role, how
/// long one request took, or why it could not be reached.
public struct RemoteNodeStatus: Sendable {
    /// What the node is to the backend.
    public enum Role: String, Sendable, Codable {
        /// A Redis server (a shard of `redis://`) or an HTTP cache.
        case server
        /// A Redis Cluster master.
        case master
        /// A Redis Cluster replica.
        case replica
        /// A seed of a Redis Cluster whose topology could not be fetched: its nodes are unknown.
        case seed
    }

    /// The node, without credentials (`redis://127.0.0.1:7000`, `https://cache.internal/ci`).
    public var node: String
    public var role: Role
    /// The time one request took (a `PING`, an HTTP `HEAD`), connecting included; `nil` when the
    /// node could not be reached.
    public var latency: Duration?
    /// Why the node could not be reached (code ``BlobStore/BlobStoreError/Code/remote``); `nil`
    /// when it answered.
    public var error: BlobStoreError?

    /// - Parameters:
    ///   - node: The node, without credentials.
    ///   - role: What the node is to the backend.
    ///   - latency: The time one request took, or `nil`.
    ///   - error: Why it could not be reached, or `nil`.
    public init(node: String, role: Role, latency: Duration?, error: BlobStoreError?) {
        self.node = node
        self.role = role
        self.latency = latency
        self.error = error
    }

    /// Whether the node answered.
    public var isReachable: Bool { error == nil }

    /// Times `request`, one round trip to `node`: its latency when it returns, its error when it
    /// throws.
    static func measure(_ node: String, role: Role, _ request: () throws -> Void) -> RemoteNodeStatus {
        let clock = ContinuousClock()
        let start = clock.now
        do {
            try request()
            return RemoteNodeStatus(node: node, role: role, latency: clock.now - start, error: nil)
        } catch let error as BlobStoreError {
            return RemoteNodeStatus(node: node, role: role, latency: nil, error: error)
        } catch {
            return RemoteNodeStatus(
                node: node, role: role, latency: nil, error: BlobStoreError.remote(node, "\(error)"))
        }
    }
}
