import Foundation
import Glibc

// MARK: - Chunked values: the put

extension BlobStore {
    /// Puts a value cut into `recipe`'s chunks (`bytes` is the value): reuses a sound copy of
    /// the whole content if there is one (chunked, packed or loose); otherwise each chunk is
    /// reused when a sound copy is stored already, or appended to the newest pack, and the put
    /// record carries the recipe with every chunk's location (docs/design.md, "Chunked values").
    /// Under the exclusive lock, in steps like ``commitPacked(_:_:)``: the hashing of reused
    /// chunks and the syncs run with the state mutex let go.
    ///
    /// In ``Durability/always`` mode every pack holding one of the value's chunks is synced
    /// before the record is appended, the journal after it; in `batched` mode the group commit
    /// syncs the packs appended to before the journal.
    func commitChunked(_ record: JournalRecord.PutRecord, _ recipe: ChunkRecipe, _ bytes: UnsafeRawBufferPointer)
        throws
    {
        precondition(recipe.digest == record.digest && recipe.length == bytes.count, "the value's recipe")
        try writeInSteps {
            var located = record
            var reused = false
            if let reference = state.withLock({ $0.index.blob(record.digest) }) {
                reused = try reuse(reference, in: &located)
            }
            if !reused { (located.location, located.recipe) = (.chunked, try placeChunks(recipe, bytes)) }
            #if BLOBSTORE_FAULT_INJECTION
                if !reused { TestHooks.reach(.putBlobLinked) }
            #endif
            try state.withLock { state in
                try checkWritable(state)
                try state.append([.put(located)])
                state.index.markVerified(located.digest)
                if let chunks = located.recipe?.recipe.chunks {
                    for chunk in chunks { state.index.markVerified(chunk.digest) }
                }
                try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
                maintainAfterWrite(&state, protecting: located.key)
            }
        }
    }

    /// Puts a value written to a temporary blob (a stream, a file) as chunks, when the
    /// configuration chunks one of its size: the blob is mapped, cut and its chunks hashed on
    /// every core (its digest is known), then put by ``commitChunked(_:_:_:)`` and discarded.
    /// Returns `false`, with `blob` untouched, for a value stored whole.
    func commitChunked(_ record: JournalRecord.PutRecord, from blob: TemporaryBlob) throws -> Bool {
        guard let parameters = configuration.chunking(forValueSized: Int(clamping: blob.size)) else { return false }
        // The blob's own descriptor is write-only: its name in tmp/ is this process's alone.
        let readable = try Syscalls.open(blob.path, O_RDONLY | O_NOFOLLOW)
        defer { Syscalls.close(readable) }
        let mapping = try FileMapping(readable, length: Int(blob.size))
        let recipe = ChunkRecipe.make(
            of: mapping.bytes, parameters, workers: ChunkedRead.workers, digest: blob.digest)
        guard Self.recordFits(recipe, key: record.key, metadata: Data(record.metadata)) else { return false }
        defer { content.discard(blob) }
        try withExtendedLifetime(mapping) { try commitChunked(record, recipe, mapping.bytes) }
        return true
    }

    /// Places each chunk of `recipe` (cut from `bytes`): a chunk already stored whose copy is
    /// sound (its needle checked, hashed unless this process verified it) is reused, any other
    /// is appended to the newest pack (a chunk named twice is placed once). Returns the recipe
    /// with every chunk's location. Within ``writeInSteps(_:)``: the mutex is taken for each
    /// lookup and append, and let go while a reused chunk is hashed.
    ///
    /// In ``Durability/always`` mode every pack the chunks are in is synced before this returns;
    /// appending leaves `batched` mode's syncs to the group commit (``appendNeedle(_:digest:_:)``).
    private func placeChunks(_ recipe: ChunkRecipe, _ bytes: UnsafeRawBufferPointer) throws -> PlacedRecipe {
        var locations: [BlobLocation] = []
        locations.reserveCapacity(recipe.chunks.count)
        var placed: [SHA256Digest: BlobLocation] = [:]
        var packs: Set<UInt32> = []
        for (index, chunk) in recipe.chunks.enumerated() {
            if let location = placed[chunk.digest] {
                locations.append(location)
                continue
            }
            let piece = UnsafeRawBufferPointer(rebasing: bytes[recipe.offsets[index]..<recipe.offsets[index + 1]])
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
            if location == nil {
                location = .packed(
                    try state.withLock { state in
                        try checkWritable(state)
                        return try appendNeedle(piece, digest: chunk.digest, &state)
                    })
            }
            if let pack = location?.packed?.pack { packs.insert(pack) }
            placed[chunk.digest] = location
            locations.append(location!)
        }
        if configuration.durability == .always { try syncPacks(packs) }
        return PlacedRecipe(recipe, locations: locations)
    }

    /// Whether a put record carrying `recipe` (with `key` and `metadata`) fits a journal record;
    /// a value too large for one (about 60 GiB at 32 KiB chunks, less with long keys) is stored
    /// whole instead.
    static func recordFits(_ recipe: ChunkRecipe, key: StoreKey, metadata: Data) -> Bool {
        // A recipe line is at most 32 + 10 bytes, a location at most 16; the rest is the record's.
        let bytes = recipe.chunks.count * 58 + key.bytes.count + metadata.count + 1024
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
