import BlobStore
import Foundation

/// A distributed cache engine that ``TieredStore`` reads through to and writes to: content by
/// digest (`cas`) and small records by the digest of a key (`ac`), as Bazel's remote cache
/// protocol and ccache's remote storage name them.
///
/// Implementations answer `nil` or `false` for what the server does not hold and throw
/// `BlobStoreError` (code ``BlobStore/BlobStoreError/Code/remote``) for everything else: unreachable,
/// timed out, refused, or an answer that is not the protocol. They must never trap on what a
/// server sends, and never allocate more than the size they are asked to accept. They need not
/// verify content: ``TieredStore`` rehashes every blob it fetches.
public protocol RemoteBackend: Sendable {
    /// The server or servers, without credentials, for messages (`redis://127.0.0.1:6379`).
    var name: String { get }

    /// The largest value the backend stores or returns (`Int.max` for no limit of its own);
    /// ``TieredStore`` keeps larger values local, whatever its configuration allows.
    var maximumValueSize: Int { get }

    /// Whether the server holds the blob `digest` (`HEAD`, `EXISTS`).
    func containsBlob(_ digest: SHA256Digest) throws -> Bool

    /// The bytes the server holds under `digest`, unverified, or `nil` when it holds none.
    ///
    /// - Parameters:
    ///   - digest: The blob's SHA-256.
    ///   - maximumSize: The most bytes to accept.
    /// - Throws: `BlobStoreError` with code `tooLarge` when the server's object is larger than
    ///   `maximumSize` (after which the connection is not reused); ``BlobStore/BlobStoreError/Code/remote``
    ///   for a failure.
    func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data?

    /// Stores `data` under `digest`.
    func putBlob(_ data: Data, digest: SHA256Digest) throws

    /// The record stored under `keyDigest` (the SHA-256 of a key's bytes), or `nil`.
    ///
    /// - Parameters:
    ///   - keyDigest: The SHA-256 of the key's bytes.
    ///   - maximumSize: The most bytes to accept; a larger object is an error.
    func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data?

    /// Stores a record under `keyDigest`.
    func putRecord(_ record: Data, keyDigest: SHA256Digest) throws

    /// Deletes the record under `keyDigest` (`DEL`, `DELETE`); deleting what is not there is not
    /// an error. Blobs are never deleted: other keys may refer to them, and the server's own
    /// eviction collects them.
    func removeRecord(_ keyDigest: SHA256Digest) throws

    /// Sends one request to every server or node the backend uses and reports each (`blobstore
    /// remote ping`): a `PING` to each Redis shard, to each master and replica of a Redis
    /// Cluster's topology; the default asks ``containsBlob(_:)`` of ``name``, a `server`. Never
    /// throws: an unreachable node is reported with its error.
    func ping() -> [RemoteNodeStatus]
}

extension RemoteBackend {
    /// One ``containsBlob(_:)`` (for an HTTP cache, a `HEAD` of the empty value's blob), timed:
    /// ``name`` as a `server`.
    public func ping() -> [RemoteNodeStatus] {
        [RemoteNodeStatus.measure(name, role: .server) { _ = try containsBlob(SHA256Hasher.hash(Data())) }]
    }
}
