import BlobStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Where the HTTP cache holds the body of a response it answers with: in memory for
/// ``HTTPCache/data(for:)`` (``MemoryBodies``), in files for ``HTTPCache/download(for:to:)``
/// (``FileBodies``). The rules of RFC 9111 are written once, in `HTTPCache+Fetching.swift`,
/// over this.
protocol ResponseBodies: Sendable {
    /// A body held.
    associatedtype Body: Sendable

    /// Whether a stale response within its `stale-while-revalidate` window may answer at once
    /// and be revalidated in the background (where the policy allows it).
    var revalidatesInBackground: Bool { get }

    /// The stored response for `url` that matches `requestHeaders`, with its body.
    func stored(for url: URL, requestHeaders: HTTPHeaders, in cache: HTTPCache) throws -> (
        response: StoredResponse, body: Body
    )?

    /// Sends `request` to its server (following redirects) and receives the response.
    ///
    /// - Throws: `BlobStoreError` with code `network` when the request fails.
    func send(_ request: URLRequest, with cache: HTTPCache) async throws -> ReceivedResponse<Body>

    /// How `body` is put into `storage` under a key.
    func put(_ body: Body, into storage: any BlobStorage) -> HTTPCache.BodyPut
}
