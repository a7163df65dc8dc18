import BlobStore
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies held in memory, as ``HTTPCache/data(for:)`` returns them.
struct MemoryBodies: ResponseBodies {
    var revalidatesInBackground: Bool { true }

    func stored(for url: URL, requestHeaders: HTTPHeaders, in cache: HTTPCache) throws -> (
        response: StoredResponse, body: Data
    )? {
        try cache.storedResponse(for: url, requestHeaders: requestHeaders)
    }

    func send(_ request: URLRequest, with cache: HTTPCache) async throws -> (
        response: URLResponse, body: Data, count: Int
    ) {
        let (data, response) = try await cache.session.data(for: request)
        return (response, data, data.count)
    }

    func put(_ body: Data, into storage: any BlobStorage) -> HTTPCache.BodyPut {
        { key, metadata, expires, placement in
            try storage.put(body, for: key, metadata: metadata, expires: expires, placement: placement)
        }
    }
}
