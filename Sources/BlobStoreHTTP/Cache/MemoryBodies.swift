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

    /// Sends `request` with the cache's `URLSession`, which decodes `gzip` and `deflate` bodies:
    /// the headers are made to describe the decoded body.
    func send(_ request: URLRequest, with cache: HTTPCache) async throws -> ReceivedResponse<Data> {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await cache.session.data(for: request)
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(
                .network,
                "The request to \(request.url?.absoluteString ?? "?") failed: \(error.localizedDescription). "
                    + "Check the URL and the network, then retry.")
        }
        guard let http = response as? HTTPURLResponse, let url = http.url ?? request.url else {
            throw BlobStoreError(
                .network,
                "\(request.url?.absoluteString ?? "?") did not answer with an HTTP response. Use an http(s) URL.")
        }
        var headers = HTTPHeaders(http.allHeaderFields)
        if (request.httpMethod ?? "GET").uppercased() != "HEAD", http.statusCode != 304,
            Self.wasDecoded(headers: headers, bodyCount: data.count)
        {
            // The headers must describe the body kept and served: the decoded one.
            headers.set("Content-Encoding", nil)
            headers.set("Content-Length", String(data.count))
        }
        return ReceivedResponse(status: http.statusCode, headers: headers, url: url, body: data)
    }

    /// Whether `URLSession` decoded a body whose response has `headers`: it has a
    /// `Content-Encoding` other than `identity`, and its `Content-Length` is not the body's size
    /// or its codings are ones `URLSession` always decodes (`gzip`, `x-gzip`, `deflate`).
    static func wasDecoded(headers: HTTPHeaders, bodyCount: Int) -> Bool {
        let codings = headers.list("Content-Encoding").map { $0.lowercased() }.filter { $0 != "identity" }
        guard !codings.isEmpty else { return false }
        if let length = headers["Content-Length"].flatMap(Int.init), length != bodyCount { return true }
        return codings.allSatisfy { ["gzip", "x-gzip", "deflate"].contains($0) }
    }

    func put(_ body: Data, into storage: any BlobStorage) -> HTTPCache.BodyPut {
        { key, metadata, expires, placement in
            try storage.put(body, for: key, metadata: metadata, expires: expires, placement: placement)
        }
    }
}
