import Foundation
import Glibc

// MARK: - Chunked values: the put

extension BlobStore {
    /// Puts `bytes` as chunks cut with `parameters`, under the record `record(digest)` gives for
    /// the value's digest (for `key`, with `metadataSize` bytes of metadata), and returns the
    /// digest; `nil`, with nothing written, for a value whose recipe would not fit a journal
    /// record (the caller stores it whole). The caller may know the `digest` (it hashed the bytes
    /// as it wrote them); `expected` is checked as ``put(_:for:metadata:expires:expecting:)`` does,
    /// before anything is written.
    ///
    /// Under the exclusive lock (``writeInSteps(_:)``): a sound stored copy of the value (loose,
    /// packed, or chunked) is referred to as any put refers to one (``referToStoredCopy(_:cutAs:)``);
    /// otherwise each chunk is placed (``place(_:_:into:)``) and the put record carries the
    /// recipe with every chunk's location (docs/design.md, "The put").
    ///
    /// Pipelined, each chunk is placed as soon as it is hashed while later ones are still cut and
    /// hashed on the other cores (``ChunkRecipe/make(of:_:workers:digest:placing:)``). When the
    /// caller does not know the digest, it is known only at the end: a copy stored whole, or
    /// chunked another way, is then referred to and the chunks this put appended are dead space
    /// until their pack is repacked. Not pipelined, the recipe is made first, without the lock:
    /// a put that `expected` a digest (nothing is written unless the bytes have it), a value
    /// larger than ``pipelinedLimit`` (the lock is held for the appends only), and one with more
    /// chunks at the chunker's minimum than a record may name (placed only if its recipe fits).
    ///
    /// In ``Durability/always`` mode every pack holding one of the value's chunks is synced
    /// before the record is appended, the journal after it; in `batched` mode the group commit
    /// syncs the packs appended to before the journal.
    func putChunked(
        _ bytes: UnsafeRawBufferPointer, _ parameters: ChunkingParameters, digest known: SHA256Digest? = nil,
        key: StoreKey, metadataSize: Int, expecting expected: SHA256Digest?,
        record: (SHA256Digest) -> JournalRecord.PutRecord
    ) throws -> SHA256Digest? {
        let fits = { (chunks: Int) in Self.recordFits(chunks: chunks, key: key, metadataSize: metadataSize) }
        let pipelined =
            expected == nil && bytes.count <= Self.pipelinedLimit && fits(bytes.count / parameters.minimum + 1)
        let made =
            pipelined ? nil : ChunkRecipe.make(of: bytes, parameters, workers: ChunkedRead.workers, digest: known)
        if let made {
            try Self.check(made.digest, expected: expected, key: key)
            guard fits(made.chunks.count) else { return nil }
        }
        return try writeInSteps {
            // Looked for once: before placing when the digest is known, after it otherwise.
            let knownDigest = made?.digest ?? known
            if let knownDigest, try referToStoredCopy(record(knownDigest), cutAs: nil) { return knownDigest }
            var placement = ChunkPlacement()
            let recipe: ChunkRecipe
            if let made {
                for (index, chunk) in made.chunks.enumerated() {
                    let piece = UnsafeRawBufferPointer(rebasing: bytes[made.offsets[index]..<made.offsets[index + 1]])
                    try place(chunk, piece, into: &placement)
                }
                recipe = made
            } else {
                recipe = try ChunkRecipe.make(
                    of: bytes, parameters, workers: ChunkedRead.workers, digest: known
                ) { _, chunk, piece in try place(chunk, piece, into: &placement) }
            }
            if knownDigest == nil, try referToStoredCopy(record(recipe.digest), cutAs: recipe) { return recipe.digest }
            try commitChunked(record(recipe.digest), recipe, placement)
            return recipe.digest
        }
    }

    /// The largest value a chunked put pipelines (1 GiB): one put holds the exclusive lock for
    /// about 1.5 s at most on this machine's two cores; a larger one makes its recipe before it
    /// takes the lock, which it then holds while the chunks are appended.
    static let pipelinedLimit = 1 << 30

    /// Appends `record` pointing at a sound stored copy of its value (``reuse(_:in:)``), if there
    /// is one the put is to refer to instead of its own chunks: any copy, but one chunked exactly
    /// as `recipe`, whose chunks the put's placing reused already where they were sound. Returns
    /// whether it did. Within ``writeInSteps(_:)``.
    private func referToStoredCopy(_ record: JournalRecord.PutRecord, cutAs recipe: ChunkRecipe?) throws -> Bool {
        guard let reference = state.withLock({ $0.index.blob(record.digest) }) else { return false }
        if let recipe, reference.location == .chunked, state.withLock({ $0.index.recipe(record.digest) }) == recipe {
            return false
        }
        var located = record
        guard try reuse(reference, in: &located) else { return false }
        try appendPut(located, verifiedChunks: located.recipe?.recipe.chunks ?? [])
        return true
    }

    /// Appends the put of a value whose chunks `placement` placed, as `recipe` cut them. Within
    /// ``writeInSteps(_:)``.
    private func commitChunked(
        _ record: JournalRecord.PutRecord, _ recipe: ChunkRecipe, _ placement: ChunkPlacement
    ) throws {
        precondition(recipe.digest == record.digest && UInt64(recipe.length) == record.size, "the value's recipe")
        if configuration.durability == .always { try syncPacks(placement.packs) }
        #if BLOBSTORE_FAULT_INJECTION
            if placement.appended { TestHooks.reach(.putBlobLinked) }
        #endif
        var located = record
        located.location = .chunked
        located.recipe = PlacedRecipe(recipe, locations: placement.locations)
        try appendPut(located, verifiedChunks: recipe.chunks)
    }

    /// Puts a value written to a temporary blob (a stream, a file) as chunks, when the
    /// configuration chunks one of its size: the blob is mapped and put by
    /// ``putChunked(_:_:digest:key:metadataSize:expecting:record:)`` (its digest is known), then discarded.
    /// Returns `false`, with `blob` untouched, for a value stored whole.
    func commitChunked(_ record: JournalRecord.PutRecord, from blob: TemporaryBlob) throws -> Bool {
        guard let parameters = configuration.chunking(forValueSized: Int(clamping: blob.size)) else { return false }
        // The blob's own descriptor is write-only: its name in tmp/ is this process's alone.
        let readable = try Syscalls.open(blob.path, O_RDONLY | O_NOFOLLOW)
        defer { Syscalls.close(readable) }
        let mapping = try FileMapping(readable, length: Int(blob.size))
        let put: SHA256Digest?
        do {
            put = try withExtendedLifetime(mapping) {
                try putChunked(
                    mapping.bytes, parameters, digest: blob.digest, key: record.key,
                    metadataSize: record.metadata.count, expecting: nil
                ) { _ in record }
            }
        } catch {
            content.discard(blob)
            throw error
        }
        guard put != nil else { return false }
        content.discard(blob)
        return true
    }

    /// Places one chunk of a chunked put (`bytes` are its bytes): a chunk the put placed already
    /// is where it put it; one already stored whose copy is sound (its needle checked, hashed
    /// unless this process verified it) is reused; any other is appended to the newest pack.
    /// Within ``writeInSteps(_:)``: the mutex is taken for each lookup and append, and let go
    /// while a reused chunk is hashed. Appending leaves `batched` mode's syncs to the group
    /// commit (``appendNeedle(_:digest:_:)``); `always` mode's are the caller's.
    private func place(
        _ chunk: ChunkRecipe.Chunk, _ bytes: UnsafeRawBufferPointer, into placement: inout ChunkPlacement
    )
        throws
    {
        if let location = placement.location(of: chunk.digest) {
            placement.add(chunk.digest, at: location)
            return
        }
        var location: BlobLocation? = nil
        if let reference = state.withLock({ $0.index.blob(chunk.digest) }) {
            switch reference.location {
            case .packed(let needle):
                if needleIsSound(chunk.digest, reference, at: needle) { location = reference.location }
            case .loose:
                if try isSound(chunk.digest, reference) { location = .loose }
            case .chunked:
                break
            }
        }
        if let location {
            placement.add(chunk.digest, at: location)
            return
        }
        let appended = try state.withLock { state in
            try checkWritable(state)
            return try appendNeedle(bytes, digest: chunk.digest, &state)
        }
        placement.add(chunk.digest, at: .packed(appended), appended: true)
    }

    /// Whether the put record of `key` with `metadataSize` bytes of metadata and a recipe of
    /// `chunks` chunks fits a journal record; a value too large for one (about 35 GiB at 32 KiB
    /// chunks, less with long keys) is stored whole instead.
    static func recordFits(chunks: Int, key: StoreKey, metadataSize: Int) -> Bool {
        // A recipe line is at most 32 + 10 bytes, a location at most 16; the rest is the record's.
        let bytes = chunks * 58 + key.bytes.count + metadataSize + 1024
        return bytes <= JournalFormat.maxPayloadSize
    }

    // MARK: - Reads a window at a time

    /// A handle on an unnamed file holding the chunked value `read` locates, positioned at its
    /// start, written a window at a time, each window checked before it was written: memory
    /// stays at one window (16 MiB) whatever the value's size, and the caller reads nothing
    /// unchecked. The file is made in `tmp/` (`O_TMPFILE`), or in memory where the store cannot
    /// write there (read-only). A missing or damaged chunk repairs as any read of damage does and
    /// gives ``ReadOutcome/damaged``.
    func verifiedCopy(_ read: ChunkedRead, digest: SHA256Digest) throws -> ReadOutcome<FileHandle> {
        let fd: FileDescriptor
        if (try? layout.checkFixedDirectory(layout.tmp)) != nil,
            let unnamed = try? Syscalls.unnamedFile(in: layout.tmp, mode: configuration.fileMode)
        {
            fd = unnamed
        } else {
            fd = try Syscalls.memoryFile(named: "blobstore-chunked-value")
        }
        let miss: ContentStore.ReadResult?
        do {
            miss = try read.forEachWindow(verify: configuration.verifyReads, content: content) { window in
                try window.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
            }
            if miss == nil { try Syscalls.rewind(fd) }
        } catch {
            Syscalls.close(fd)
            throw error
        }
        guard let miss else { return .found(FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)) }
        Syscalls.close(fd)
        // A miss settles as damaged (the repair runs) or, for a value gone meanwhile, absent.
        if case .absent = try settle(miss, digest: digest) { return .absent }
        return .damaged
    }
}
