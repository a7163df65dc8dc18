import BlobStore
import Foundation
import Glibc
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Bodies held in files, for one ``HTTPCache/download(for:to:)``: each body read from the store
/// or received from a server is written to a file of its own beside the destination
/// (`<destination>.1`, `.2`, …), so that a conditional request's answer never overwrites the
/// stored body it may keep. ``finish(with:)`` moves the body that answers to the destination and
/// deletes the others; ``discardAll()`` deletes them all.
final class FileBodies: ResponseBodies {
    /// Where the answering body ends.
    let destination: URL
    /// The files made so far.
    private let made = Mutex<[URL]>([])

    /// Bodies for a download to `destination`.
    init(destination: URL) {
        self.destination = destination
    }

    /// A background revalidation would need a file of its own after the download returned: a
    /// download revalidates before it answers.
    var revalidatesInBackground: Bool { false }

    func stored(for url: URL, requestHeaders: HTTPHeaders, in cache: HTTPCache) throws -> (
        response: StoredResponse, body: FileBody
    )? {
        try cache.storedResponse(for: url, requestHeaders: requestHeaders) { key in
            let (file, handle) = try newFile()
            defer { try? handle.close() }
            guard let info = try cache.store.writeValue(for: key, to: handle) else { return nil }
            return (info, FileBody(url: file, count: Int(try handle.offset())))
        }
    }

    /// Received by the cache's own HTTP/1.1 client straight into a file beside the destination,
    /// in step with the connection (`FileDownloader`), on a thread of its own.
    func send(_ request: URLRequest, with cache: HTTPCache) async throws -> ReceivedResponse<FileBody> {
        let (file, handle) = try newFile()
        defer { try? handle.close() }
        let received = try await offload { try cache.downloader.download(request, into: handle, path: file.path) }
        return ReceivedResponse(
            status: received.status, headers: received.headers, url: received.url,
            body: FileBody(url: file, count: received.body))
    }

    func put(_ body: FileBody, into storage: any BlobStorage) -> HTTPCache.BodyPut {
        { key, metadata, expires, placement in
            try storage.put(contentsOf: body.url, for: key, metadata: metadata, expires: expires, placement: placement)
        }
    }

    /// Moves `body` to the destination, replacing what is there, and deletes the other files.
    func finish(with body: FileBody) throws {
        defer { discardAll() }
        try Self.move(body.url, to: destination)
    }

    /// Deletes every file made but the destination.
    func discardAll() {
        for file in made.withLock({ $0 }) { try? FileManager.default.removeItem(at: file) }
    }

    /// The next name beside the destination (`<destination>.<n>`), deleted by ``discardAll()``.
    private func nextFile() -> URL {
        made.withLock { made in
            made.append(URL(fileURLWithPath: destination.path + ".\(made.count + 1)"))
            return made[made.count - 1]
        }
    }

    /// Creates the next empty file beside the destination and opens it for writing.
    private func newFile() throws -> (URL, FileHandle) {
        let file = nextFile()
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw BlobStoreError(
                .io, "Cannot create \(file.path). Check that its directory exists and is writable.", path: file.path)
        }
        do {
            return (file, try FileHandle(forWritingTo: file))
        } catch {
            throw BlobStoreError(
                .io, "Cannot open \(file.path): \(error.localizedDescription). Check that it is writable.",
                path: file.path)
        }
    }

    /// Renames `source` to `target`, replacing it; copies and removes `source` when the two are on
    /// different file systems.
    private static func move(_ source: URL, to target: URL) throws {
        if rename(source.path, target.path) == 0 { return }
        let failure = errno
        do {
            guard failure == EXDEV else {
                throw BlobStoreError(
                    .io,
                    "Cannot move \(source.path) to \(target.path): \(String(cString: strerror(failure))). Check "
                        + "that the directory is writable.",
                    path: target.path, errno: failure)
            }
            try? FileManager.default.removeItem(at: target)
            try FileManager.default.copyItem(at: source, to: target)
            try FileManager.default.removeItem(at: source)
        } catch {
            try? FileManager.default.removeItem(at: source)
            throw error
        }
    }
}
