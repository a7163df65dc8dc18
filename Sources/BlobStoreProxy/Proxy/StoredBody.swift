import BlobStore
import BlobStoreHTTP
import Foundation

/// A stored response's body as the proxy serves it: in memory, or, when it is larger than
/// ``inMemoryLimit``, opened in the store and sent a piece at a time, so that a hit on a
/// multi-GB response costs no more memory than a small one.
enum StoredBody {
    /// The body's bytes.
    case bytes(Data)
    /// A read-only handle on the stored body (verified when it was opened), and its size.
    case file(FileHandle, count: Int)

    /// The largest body read into memory to be served.
    static let inMemoryLimit = 1 << 20
    /// The most bytes of a body in a file read at once.
    static let pieceSize = 256 << 10

    /// The body's size in bytes.
    var count: Int {
        switch self {
        case .bytes(let data): data.count
        case .file(_, let count): count
        }
    }

    /// The stored response for `url` matching `requestHeaders` in `cache`, with its body.
    ///
    /// - Throws: `BlobStoreError` from the store.
    static func lookUp(_ url: URL, in cache: HTTPCache, requestHeaders: HTTPHeaders) throws -> (
        StoredResponse, StoredBody
    )? {
        try cache.storedResponse(for: url, requestHeaders: requestHeaders) { key in
            switch try cache.store.entry(for: key, readingUpTo: inMemoryLimit) {
            case nil: nil
            case .value(let entry)?: (entry.info, .bytes(entry.value))
            case .opened(let info, let handle)?: (info, .file(handle, count: Int(clamping: info.size)))
            }
        }
    }

    /// Sends `head`, then the bytes of `range` of the body, to `client`, a piece at a time for a
    /// body in a file: each piece is read once the client has taken the one before (the head
    /// goes out with the first).
    ///
    /// - Throws: `network` when the client connection fails; `io` when the stored file cannot
    ///   be read or ends early.
    func send(_ range: Range<Int>, after head: [UInt8], to client: WireConnection) async throws {
        switch self {
        case .bytes(let data):
            try Self.write(data, range, after: head, to: client)
        case .file(let handle, _):
            try client.write(head)
            guard !range.isEmpty else { return }
            try handle.seek(toOffset: UInt64(range.lowerBound))
            var left = range.count
            while left > 0 {
                let piece = try handle.read(upToCount: min(left, Self.pieceSize)) ?? Data()
                guard !piece.isEmpty else {
                    throw BlobStoreError(.io, "The stored body ended \(left) bytes early.")
                }
                try client.write(piece)
                left -= piece.count
                if left > 0 { try await client.flush() }
            }
        }
    }

    /// Writes `head` and the bytes of `range` of `data` to `client` with one write, which does not
    /// wait (what is not sent at once waits for ``WireConnection/flush()``).
    ///
    /// - Throws: `network` when the client connection fails.
    static func write(_ data: Data, _ range: Range<Int>, after head: [UInt8], to client: WireConnection) throws {
        var bytes = head
        data[data.startIndex + range.lowerBound..<data.startIndex + range.upperBound].withUnsafeBytes {
            bytes.append(contentsOf: $0)
        }
        try client.write(bytes)
    }

    /// Refreshes the stored `response` that has this body after a `304`
    /// (`HTTPCache.refresh(_:body:requestHeaders:)`); a body in a file is not stored again:
    /// when the headers alone cannot be written in place, the answer is `notStored`.
    func refresh(_ response: StoredResponse, in cache: HTTPCache, requestHeaders: HTTPHeaders) throws -> Storability {
        switch self {
        case .bytes(let data):
            return try cache.refresh(response, body: data, requestHeaders: requestHeaders)
        case .file:
            return try cache.refreshInPlace(response, requestHeaders: requestHeaders)
                ?? .notStored("a large body is stored again only with a full response")
        }
    }
}
