import Foundation

// MARK: - Values as AsyncSequences of chunks

extension BlobStore {
    /// Stores the bytes `chunks` yields under `key`, streamed: memory use is about 1 MiB
    /// whatever the size. The bytes are hashed as they are written; a value that ends within
    /// 1 MiB is stored as ``put(_:for:metadata:expires:expecting:)-4lzjp`` stores it (packed when
    /// small).
    ///
    /// Nothing is stored when `chunks` throws, when the task is cancelled (checked between
    /// chunks: the put throws `CancellationError`), when the value passes the capacity, or when
    /// it does not hash to `expected`.
    ///
    /// - Parameters:
    ///   - chunks: The value's bytes, in pieces of any size (`Data`, `[UInt8]`, …).
    ///   - key: The key.
    ///   - metadata: Opaque bytes kept with the entry.
    ///   - expires: After this date the entry reads as missing.
    ///   - expected: The digest the value must have, or `nil`.
    /// - Returns: The SHA-256 of the value.
    /// - Throws: What `chunks` throws, `CancellationError`, or ``BlobStoreError`` (`tooLarge`,
    ///   `digestMismatch`, …).
    @discardableResult
    public func put<Chunks: AsyncSequence>(
        streaming chunks: Chunks, for key: StoreKey, metadata: Data = Data(), expires: Date? = nil,
        expecting expected: SHA256Digest? = nil
    ) async throws -> SHA256Digest where Chunks.Element: DataProtocol {
        try checkLimits(key: key, metadata: metadata)
        let piece = ContentStore.chunkSize
        var iterator = chunks.makeAsyncIterator()
        var pending = Data()
        var ended = false
        while pending.count < piece {
            guard let chunk = try await iterator.next() else {
                ended = true
                break
            }
            try Task.checkCancellation()
            pending.append(contentsOf: chunk)
        }
        if ended { return try await put(pending, for: key, metadata: metadata, expires: expires, expecting: expected) }

        let writer = try await offload { try self.content.temporaryWriter() }
        let blob: TemporaryBlob
        do {
            let capacity = state.withLock { $0.limits.capacity }
            while true {
                if let capacity, writer.size + UInt64(pending.count) > capacity {
                    try checkCapacity(writer.size + UInt64(pending.count), soFar: true)
                }
                let bytes = pending
                try await offload { try bytes.withUnsafeBytes { try writer.append($0) } }
                pending = Data()
                guard !ended else { break }
                while pending.count < piece {
                    guard let chunk = try await iterator.next() else {
                        ended = true
                        break
                    }
                    try Task.checkCancellation()
                    pending.append(contentsOf: chunk)
                }
            }
            blob = try writer.finish(fileMode: content.fileMode)
            try Self.check(blob.digest, expected: expected, key: key)
        } catch {
            content.discard(writer)
            throw error
        }
        let record = putRecord(key: key, digest: blob.digest, size: blob.size, metadata: metadata, expires: expires)
        try await offload { try self.commit(record, blob: blob) }
        return blob.digest
    }

    /// The value under `key` as an `AsyncSequence` of chunks of `chunkSize` bytes (the last may
    /// be shorter), verified as it streams (``BlobChunks``); `nil` as for ``entry(for:)``.
    /// Records an access. The value is the one the returned ``BlobChunks/info`` describes,
    /// whatever other threads or processes write meanwhile.
    ///
    /// - Parameters:
    ///   - key: The key.
    ///   - chunkSize: The most bytes in one chunk. Default: 1 MiB.
    /// - Throws: `CancellationError` when the task is cancelled before the value is opened, or
    ///   ``BlobStoreError``.
    public func chunks(for key: StoreKey, chunkSize: Int = 1 << 20) async throws -> BlobChunks? {
        try await offload(.stopWaiting) { () -> BlobChunks? in
            guard let (entry, value, _) = try self.openEntry(key).value else { return nil }
            let source: BlobChunks.Source
            switch value {
            case .packed(let data): source = .bytes(data)
            case .file(let fd): source = .file(BlobChunks.OpenFile(fd))
            case .chunks(let chunked): source = .chunks(chunked)
            }
            // A streamed blob is verified at its end, not now: the hit marks nothing verified.
            self.finishHit(nil, wasVerified: false)
            return BlobChunks(
                info: EntryInfo(key: key, entry: entry), source: source, chunkSize: chunkSize,
                verify: self.configuration.verifyReads, store: self)
        }
    }
}
