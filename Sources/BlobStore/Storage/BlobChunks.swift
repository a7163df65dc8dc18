import Foundation

/// A value read as an `AsyncSequence` of chunks (``BlobStore/chunks(for:chunkSize:)``), hashed as
/// it streams: memory use is one chunk (and, for a value stored as content-defined chunks, one
/// window of them: at most 16 MiB), whatever the value's size.
///
/// The last chunk is returned only once the whole value has matched its digest; of a value
/// stored as content-defined chunks, every piece only once the chunks it comes from matched
/// theirs. A damaged value
/// throws ``BlobStoreError/Code/corrupt`` in its place (and its blob is set aside, as any read
/// of damage does), so a consumer that commits what it read only when the sequence ends never
/// commits wrong bytes. Each iterator reads the value from its start; the file stays open while
/// the sequence or an iterator exists.
public struct BlobChunks: AsyncSequence, Sendable {
    public typealias Element = Data

    /// The entry whose value this is.
    public let info: EntryInfo
    private let source: Source
    private let chunkSize: Int
    private let verify: Bool
    private let store: BlobStore

    /// Where the bytes come from.
    enum Source: Sendable {
        /// A packed value, read (and verified) whole when it was opened: it is small.
        case bytes(Data)
        /// A loose blob.
        case file(OpenFile)
        /// A chunked value: read a window of chunks at a time, each window checked before any
        /// of its bytes is returned.
        case chunks(ChunkedRead)
    }

    /// A descriptor closed when the last sequence or iterator using it goes.
    final class OpenFile: Sendable {
        let descriptor: FileDescriptor

        init(_ descriptor: FileDescriptor) { self.descriptor = descriptor }

        deinit { Syscalls.close(descriptor) }
    }

    init(info: EntryInfo, source: Source, chunkSize: Int, verify: Bool, store: BlobStore) {
        self.info = info
        self.source = source
        self.chunkSize = Swift.max(1, chunkSize)
        self.verify = verify
        self.store = store
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(chunks: self)
    }

    /// Reads the chunks in order.
    public struct Iterator: AsyncIteratorProtocol {
        private let chunks: BlobChunks
        private let hasher = SHA256Hasher()
        private var offset: UInt64 = 0
        private var finished = false
        /// Of a chunked value: the windows not read yet, and what is left of the last one read.
        private var windows: ArraySlice<Range<Int>> = []
        private var pending = Data()

        init(chunks: BlobChunks) {
            self.chunks = chunks
            if case .chunks(let chunked) = chunks.source { windows = chunked.windows[...] }
        }

        /// The next chunk, `nil` after the last, or a `CancellationError` when the task is
        /// cancelled.
        ///
        /// - Throws: ``BlobStoreError/Code/corrupt`` in place of the last chunk when the value does
        ///   not match its digest or its size.
        public mutating func next() async throws -> Data? {
            guard !finished else { return nil }
            let size = chunks.info.size
            guard offset < size else {
                finished = true
                return nil
            }
            let count = Int(Swift.min(UInt64(chunks.chunkSize), size - offset))
            let chunk: Data
            switch chunks.source {
            case .bytes(let data):
                try Task.checkCancellation()
                let start = Int(offset)
                chunk = data.subdata(in: start..<start + count)
            case .file(let file):
                let at = Int64(offset)
                chunk = try await offload(.stopWaiting) {
                    var buffer = Data(count: count)
                    let read = try buffer.withUnsafeMutableBytes {
                        try Syscalls.preadFully(file.descriptor, into: $0, at: at)
                    }
                    buffer.removeSubrange(read...)
                    return buffer
                }
                guard chunk.count == count else {
                    return try damaged("it ends at byte \(offset + UInt64(chunk.count))")
                }
                if chunks.verify { chunk.withUnsafeBytes { hasher.update($0) } }
            case .chunks(let chunked):
                var piece = Data()
                while piece.count < count {
                    if pending.isEmpty {
                        guard let window = windows.popFirst() else {
                            return try damaged("its chunks end at byte \(offset + UInt64(piece.count))")
                        }
                        let (store, verify) = (chunks.store, chunks.verify)
                        let result = try await offload(.stopWaiting) {
                            chunked.read(window, verify: verify, content: store.content)
                        }
                        guard case .found(let bytes) = result else {
                            return try damaged("a chunk is missing or damaged (\(result))")
                        }
                        pending = bytes
                    }
                    let taken = Swift.min(count - piece.count, pending.count)
                    piece.append(pending.prefix(taken))
                    pending = pending.dropFirst(taken)
                }
                chunk = piece
            }
            offset += UInt64(count)
            if offset == size, chunks.verify, case .file = chunks.source {
                let digest = hasher.finalize()
                guard digest == chunks.info.digest else { return try damaged("it hashes to \(digest)") }
            }
            return chunk
        }

        /// Ends the sequence with `corrupt`, after setting the damaged blob aside.
        private mutating func damaged(_ what: String) throws -> Data? {
            finished = true
            let info = chunks.info
            // Set aside as any read of damage does; a store open for reading only cannot, and
            // the damage is what the caller needs to know either way.
            let setAside = (try? chunks.store.repair(info.digest, quarantine: true)) != nil
            throw BlobStoreError(
                .corrupt,
                "The value under key '\(info.key)' is damaged on disk: \(what), not the \(info.size) bytes of "
                    + "\(info.digest). "
                    + (setAside
                        ? "The blob was set aside and the entry dropped; store the value again."
                        : "Verify the store with repair (BlobStore.verify(repair: true)), then store the value again."))
        }
    }
}
