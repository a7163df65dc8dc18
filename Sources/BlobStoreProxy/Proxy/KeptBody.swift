import BlobStore
import BlobStoreHTTP
import Foundation

/// A response body kept while it is relayed, to be stored once it is complete: in memory up to
/// ``StoredBody/inMemoryLimit``, then in a spool file (``ProxyContext/makeSpoolFile``) from
/// which it is stored, so that keeping a body of any size costs about a megabyte of memory. The
/// spool file is removed when the kept body goes.
final class KeptBody {
    private var bytes: [UInt8] = []
    /// The spool file, once the body outgrew memory, and the handle it is written through (closed
    /// once the body is stored from it).
    private var spool: URL?
    private var writer: FileHandle?
    private let makeSpoolFile: @Sendable () throws -> URL
    /// The bytes kept so far.
    private(set) var count = 0

    /// An empty body whose spool file, if it needs one, comes from `makeSpoolFile`.
    init(spoolingTo makeSpoolFile: @escaping @Sendable () throws -> URL) {
        self.makeSpoolFile = makeSpoolFile
    }

    deinit {
        try? writer?.close()
        if let spool { try? FileManager.default.removeItem(at: spool) }
    }

    /// Appends `chunk`.
    ///
    /// - Throws: When the spool file cannot be made or written.
    func append(_ chunk: ArraySlice<UInt8>) throws {
        count += chunk.count
        if let writer { return try chunk.withUnsafeBytes { try writer.write(contentsOf: $0) } }
        bytes.append(contentsOf: chunk)
        guard bytes.count > StoredBody.inMemoryLimit else { return }
        let url = try makeSpoolFile()
        spool = url
        let handle = try FileHandle(forWritingTo: url)
        writer = handle
        try handle.write(contentsOf: bytes)
        bytes = []
    }

    /// Stores `record` with this body in `cache` (`HTTPCache.store(_:body:method:requestHeaders:)`),
    /// from the spool file when there is one.
    ///
    /// `decided` is what the caller decided already (`HTTPCache.Decided`).
    func store(
        _ record: StoredResponse, in cache: HTTPCache, requestHeaders: HTTPHeaders, decided: HTTPCache.Decided? = nil
    ) throws -> Storability {
        let storage = cache.store
        let put: HTTPCache.BodyPut
        if let url = spool {
            try writer?.close()
            writer = nil
            put = { try storage.put(contentsOf: url, for: $0, metadata: $1, expires: $2, placement: $3) }
        } else {
            let body = Data(bytes)
            put = { try storage.put(body, for: $0, metadata: $1, expires: $2, placement: $3) }
        }
        return try cache.store(record, method: "GET", requestHeaders: requestHeaders, decided: decided, putBody: put)
    }
}
