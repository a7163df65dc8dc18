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
    /// The stored body in a file of its own, opened and not verified yet, and its size: the
    /// exchange has it verified on another thread (`ProxyExchange.verified(_:)`) before it
    /// decides anything from it (a gigabyte's hash would hold the event loop, and every other
    /// connection of it, for most of a second); ``send(_:after:to:)`` verifies one still left so.
    case unverified(UnverifiedBlob, count: Int)
    /// A body kept as chunks: each piece sent is read and verified when it is sent, and a range
    /// reads only the chunks that hold it.
    case chunks(ChunkedValue)

    /// The largest body read into memory to be served.
    static let inMemoryLimit = 1 << 20

    /// The body's size in bytes.
    var count: Int {
        switch self {
        case .bytes(let data): data.count
        case .file(_, let count), .unverified(_, let count): count
        case .chunks(let value): value.count
        }
    }

    /// The stored response for `url` (whose entry key is `key`, when known) matching
    /// `requestHeaders` in `cache`, with its body; `records` remembers decoded records (an event
    /// loop's own memo), else the cache's.
    ///
    /// - Throws: `BlobStoreError` from the store.
    static func lookUp(
        _ url: URL, key: StoreKey? = nil, in cache: HTTPCache, requestHeaders: HTTPHeaders,
        records: DecodedRecords? = nil
    ) throws -> (StoredResponse, StoredBody)? {
        guard
            let (response, opening) = try cache.storedResponse(
                for: url, key: key, requestHeaders: requestHeaders, records: records, openingUpTo: inMemoryLimit)
        else { return nil }
        switch opening {
        case .read(.value(let entry)): return (response, .bytes(entry.value))
        case .read(.opened(let info, let handle)): return (response, .file(handle, count: Int(clamping: info.size)))
        case .read(.chunked(_, let value)): return (response, .chunks(value))
        case .unverified(let info, let blob): return (response, .unverified(blob, count: Int(clamping: info.size)))
        }
    }

    /// Sends `head`, then the bytes of `range` of the body, to `client`: a body in a file (a
    /// loose blob, verified first, on another thread when it was opened unverified) straight from
    /// the page cache as the client takes it (``WireConnection/sendFile(_:_:)``); a chunked
    /// body's range located first (so that it reads whatever writers do meanwhile), then sent a
    /// piece of about ``pieceBytes`` at a time, each read and verified once the client has taken
    /// the one before.
    ///
    /// - Throws: ``Gone`` with nothing sent, when a body in a file is damaged (it is repaired),
    ///   or the chunks of a chunked body's range are gone or missing (the entry was removed or
    ///   replaced since it was looked up) or its first piece is damaged (the entry is dropped);
    ///   `network` when the client connection fails; `io` when the stored file cannot be read or
    ///   ends early; `corrupt` when a chunk is found damaged once the head went out (what was
    ///   sent before it was sound; the client sees the body cut).
    func send(_ range: Range<Int>, after head: [UInt8], to client: WireConnection) async throws {
        switch self {
        case .bytes(let data):
            try Self.write(data, range, after: head, to: client)
        case .file(let handle, _):
            try client.write(head)
            guard !range.isEmpty else { return }
            try await client.sendFile(handle.fileDescriptor, range)
        case .unverified:
            guard let verified = try await verified() else { throw Gone() }
            try await verified.send(range, after: head, to: client)
        case .chunks(let value):
            // Located, and the first piece read, before the head goes out: a body gone or
            // damaged there is answered as a miss.
            guard let located = try value.locate(range) else { throw Gone() }
            var sent = false
            for piece in value.pieces(of: range, about: Self.pieceBytes) {
                guard let bytes = try located.read(piece) else {
                    if !sent { throw Gone() }
                    throw BlobStoreError(.corrupt, "A chunk of the stored body is damaged; its entry was dropped.")
                }
                if !sent { try client.write(head) }
                sent = true
                try client.write(bytes)
                try await client.flush()
            }
            if !sent { try client.write(head) }
        }
    }

    /// The body, one opened unverified verified first on a thread of the system's pool, while the
    /// task waits and its loop does not; `nil` when it is damaged (it is repaired).
    ///
    /// - Throws: `BlobStoreError` when the store cannot read it.
    func verified() async throws -> StoredBody? {
        guard case .unverified(let blob, let count) = self else { return self }
        return try await offload(.runToEnd) { try blob.verified() }.map { .file($0, count: count) }
    }

    /// A stored body that could not be sent, with nothing sent: the request is answered as if
    /// nothing were stored.
    struct Gone: Error {}

    /// About how many bytes of a chunked body are read and verified at a time.
    static let pieceBytes = 1 << 20

    /// Writes `head` and the bytes of `range` of `data` to `client` without waiting: together in
    /// one system call, the body sent from where it is (``WireConnection/write(_:then:)``); what
    /// is not sent at once waits for ``WireConnection/flush()``.
    ///
    /// - Throws: `network` when the client connection fails.
    static func write(_ data: Data, _ range: Range<Int>, after head: [UInt8], to client: WireConnection) throws {
        guard !range.isEmpty else { return try client.write(head) }
        try client.write(head, then: data[data.startIndex + range.lowerBound..<data.startIndex + range.upperBound])
    }

    /// Refreshes the stored `response` that has this body after a `304`
    /// (`HTTPCache.refresh(_:body:requestHeaders:)`); a body in a file is not stored again:
    /// when the headers alone cannot be written in place, the answer is `notStored`.
    func refresh(_ response: StoredResponse, in cache: HTTPCache, requestHeaders: HTTPHeaders) throws -> Storability {
        switch self {
        case .bytes(let data):
            return try cache.refresh(response, body: data, requestHeaders: requestHeaders)
        case .file, .unverified, .chunks:
            return try cache.refreshInPlace(response, requestHeaders: requestHeaders)
                ?? .notStored("a large body is stored again only with a full response")
        }
    }
}
