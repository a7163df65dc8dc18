import Foundation
import Glibc

// MARK: - Packed values: the put, soundness checks, reads

extension BlobStore {
    /// Puts a small value whose digest is known: reuses a sound copy of the content if there is
    /// one (packed or loose), else appends a needle to the newest pack; then appends the record.
    /// Under the mutex and the exclusive lock, like ``commit(_:blob:)``; the needle costs one
    /// `pwrite(2)` and no file is created (but the first of a pack).
    ///
    /// In ``Durability/always`` mode the two syncs run with the state mutex let go (the needle's
    /// pack before the record is appended, the journal after it), so that readers of this
    /// process never wait for them; ``writers`` and the exclusive lock are held throughout.
    func commitPacked(_ record: JournalRecord.PutRecord, _ bytes: UnsafeRawBufferPointer) throws {
        try writeInSteps {
            var located = record
            var appended = false
            if let reference = state.withLock({ $0.index.blob(record.digest) }), try reuse(reference, in: &located) {
                // The stored copy is the value's.
            } else {
                let packToSync: FileDescriptor?
                (located.location, packToSync) = try state.withLock { state in
                    try checkWritable(state)
                    let location = try appendNeedle(bytes, digest: record.digest, &state)
                    return (
                        .packed(location), configuration.durability == .always ? state.packs.writer?.descriptor : nil
                    )
                }
                if let packToSync { try syncOrPoison { try Syscalls.fdatasync(packToSync) } }
                appended = true
            }
            #if BLOBSTORE_FAULT_INJECTION
                if appended { TestHooks.reach(.putBlobLinked) }
            #endif
            try appendPut(located, verifiedChunks: [])
        }
    }

    /// Appends `record`, a put whose blob (and `verifiedChunks`) this process has written or
    /// checked, and runs what follows a write: the step of a packed or chunked put that needs no
    /// file linked. Within ``writeInSteps(_:)``.
    func appendPut(_ record: JournalRecord.PutRecord, verifiedChunks: [ChunkRecipe.Chunk]) throws {
        try state.withLock { state in
            try checkWritable(state)
            try state.append([.put(record)])
            state.index.markVerified(record.digest)
            for chunk in verifiedChunks { state.index.markVerified(chunk.digest) }
            try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
            maintainAfterWrite(&state, protecting: record.key)
        }
    }

    /// Appends a needle and arranges for it to be as durable as the mode asks before its record
    /// is written: `always` syncs `packs/` now when the pack is new and leaves the pack's sync to
    /// the caller, `batched` leaves both to the group commit. Exclusive lock held, after catching
    /// up.
    ///
    /// The order matters in `always` mode: a record that reached the disk before its needle
    /// would, after a power loss, replace a key's older durable value with a missing one (the
    /// power-loss sweep catches syncing the two at once).
    func appendNeedle(_ bytes: UnsafeRawBufferPointer, digest: SHA256Digest, _ state: inout StoreState) throws
        -> PackLocation
    {
        let appended = try state.packs.append(
            bytes, digest: digest, index: state.index, layout: layout, fileMode: configuration.fileMode,
            rotateAt: configuration.effectivePackSize, trustingIndex: changes?.isQuiet == true)
        state.index.noteNeedle(at: appended.location, size: UInt64(bytes.count))
        switch configuration.durability {
        case .always:
            // Their needles were synced by the writes that appended them; the caller syncs this
            // one before the record goes out (``commitPacked(_:_:)``, or a repack's own syncs).
            for fd in appended.retired { Syscalls.close(fd) }
        case .batched:
            state.unsynced.blobs.append(contentsOf: appended.retired)
            state.unsynced.packWriter = true
        case .none:
            for fd in appended.retired { Syscalls.close(fd) }
        }
        if appended.createdPack { try syncDirectories([layout.packsDirectory], &state) }
        return appended.location
    }

    /// Whether the copy of `digest` that `reference` locates is sound, so that a put can refer to
    /// it instead of writing the content again: for a packed blob, its needle's header matches
    /// and (unless this process verified it before) its bytes hash to the digest; for a loose one,
    /// ``ContentStore/reusableBlob(_:size:verify:sync:)``; for a chunked one, every chunk
    /// (``chunksAreSound(_:size:verify:)``). In ``Durability/always`` mode the packs of a reused needle
    /// or chunks are synced, since the process that wrote them may not have. Called within
    /// ``writeInSteps(_:)``, without the state mutex: the hashing and syncing run with it let go.
    func isSound(_ digest: SHA256Digest, _ reference: StoreIndex.BlobReference) throws -> Bool {
        switch reference.location {
        case .loose:
            do {
                return try content.reusableBlob(
                    digest, size: reference.size, verify: !reference.isVerified,
                    sync: configuration.durability == .always)
            } catch {
                throw state.withLock { $0.poisoningIfSync(error) }
            }
        case .packed(let location):
            guard needleIsSound(digest, reference, at: location) else { return false }
            if configuration.durability == .always { try syncPacks([location.pack]) }
            return true
        case .chunked:
            guard let packs = chunksAreSound(digest, size: reference.size, verify: !reference.isVerified) else {
                return false
            }
            if configuration.durability == .always { try syncPacks(packs) }
            return true
        }
    }

    /// Points `record` at the stored copy of its content that `reference` locates, when that
    /// copy is sound (``isSound(_:_:)``): its location, and a chunked copy's recipe with its
    /// chunks' locations. Returns whether it did; a chunked copy whose recipe cannot be read is
    /// not reused. Every put that finds its content stored already goes through here, whatever
    /// way it would store it itself: a small value may find it chunked, a large one packed.
    func reuse(_ reference: StoreIndex.BlobReference, in record: inout JournalRecord.PutRecord) throws -> Bool {
        guard try isSound(record.digest, reference) else { return false }
        var recipe: PlacedRecipe? = nil
        if reference.location == .chunked {
            guard let placed = state.withLock({ $0.index.placedRecipe(record.digest) }) else { return false }
            recipe = placed
        }
        record.location = reference.location
        record.recipe = recipe
        return true
    }

    /// Whether the needle of `digest` at `location` is sound: its header matches and (unless this
    /// process verified it before) its bytes hash to the digest. Found under the mutex, checked
    /// after it, in the pack's mapping (``PackedRead/isSound(rehashing:)``).
    func needleIsSound(_ digest: SHA256Digest, _ reference: StoreIndex.BlobReference, at location: PackLocation)
        -> Bool
    {
        let needle = state.withLock { $0.packs.locate(location, size: reference.size, digest: digest, layout: layout) }
        return needle.isSound(rehashing: !reference.isVerified)
    }

    /// The packs holding the chunks of the chunked value `digest` when every chunk is there and
    /// (when `verify`) hashes to its digest, a window at a time (``ChunkedRead/check(verify:content:)``);
    /// `nil` when one is not.
    func chunksAreSound(_ digest: SHA256Digest, size: UInt64, verify: Bool) -> Set<UInt32>? {
        let (located, packs) = state.withLock { state in
            let chunks = state.index.recipe(digest)?.chunks ?? []
            return (
                locateChunks(digest, size: size, &state),
                Set(chunks.compactMap { state.index.blob($0.digest)?.location.packed?.pack })
            )
        }
        guard case .chunks(let read) = located, read.check(verify: verify, content: content) == nil else {
            return nil
        }
        return packs
    }

    /// Syncs the packs `numbers` (a pack gone meanwhile needs nothing); a failure poisons the handle.
    func syncPacks(_ numbers: Set<UInt32>) throws {
        try syncOrPoison {
            for number in numbers.sorted() {
                guard let fd = try Syscalls.openIfExists(layout.pack(number), O_RDONLY) else { continue }
                defer { Syscalls.close(fd) }
                try Syscalls.fdatasync(fd)
            }
        }
    }

    /// Rehashes a packed read's bytes when `verify`; a mismatch is damage.
    static func checked(_ result: ContentStore.ReadResult, digest: SHA256Digest, verify: Bool)
        -> ContentStore.ReadResult
    {
        guard verify, case .found(let data) = result else { return result }
        return SHA256Hasher.hash(data) == digest ? result : .corrupt(reason: "content does not hash to its name")
    }

    /// Finds where a packed or chunked value's bytes are, to be read once the mutex is let go
    /// (``LocatedValue/read(_:verify:content:)``); `nil` for a loose value. Of a chunked value,
    /// only the chunks that hold `range` are located (all of them without one). A needle whose
    /// pack is gone may have been moved by a repack this process has not seen yet: then the store
    /// catches up (system calls, even when the change counter says nothing moved) and
    /// `locateAgain` gives the value's location again, once.
    func locate(
        _ digest: SHA256Digest, size: UInt64, at location: BlobLocation, covering range: Range<Int>? = nil,
        _ state: inout StoreState, locateAgain: (inout StoreState) -> BlobLocation?
    ) throws -> LocatedValue? {
        switch location {
        case .loose:
            return nil
        case .packed(let packed):
            let found = state.packs.locate(packed, size: size, digest: digest, layout: layout)
            guard case .missing = found else { return .needle(found) }
            try state.catchUp(layout: layout)
            guard let again = locateAgain(&state)?.packed else { return .needle(.missing) }
            return .needle(state.packs.locate(again, size: size, digest: digest, layout: layout))
        case .chunked:
            let found = locateChunks(digest, size: size, covering: range, &state)
            guard case .chunks(let read) = found, read.isMissingAChunk else { return found }
            try state.catchUp(layout: layout)
            guard locateAgain(&state) == .chunked else { return .needle(.missing) }
            return locateChunks(digest, size: size, covering: range, &state)
        }
    }

    /// Where each chunk of the chunked value `digest` that holds `range` (every chunk without
    /// one) is (``ChunkedRead``); a value whose recipe cannot be read is damaged.
    func locateChunks(
        _ digest: SHA256Digest, size: UInt64, covering range: Range<Int>? = nil, _ state: inout StoreState
    ) -> LocatedValue {
        guard let recipe = state.index.readableRecipe(digest) else {
            return .needle(.corrupt(reason: "the value's recipe cannot be read"))
        }
        // Only a damaged journal or manifest gives an entry another size than its recipe.
        guard UInt64(recipe.length) == size else {
            return .needle(.corrupt(reason: "the value's recipe is of \(recipe.length) bytes, not \(size)"))
        }
        return .chunks(locateChunks(ChunkedRead.chunks(of: recipe, covering: range), of: recipe, &state))
    }

    /// Where chunks `located` of `recipe` are now, as the index says: a chunk it no longer
    /// knows is `missing` (a value removed meanwhile may have released it).
    func locateChunks(_ located: Range<Int>, of recipe: ChunkRecipe, _ state: inout StoreState) -> ChunkedRead {
        let sources = recipe.chunks[located].map { chunk -> ChunkedRead.Source in
            guard let reference = state.index.blob(chunk.digest) else { return .missing }
            switch reference.location {
            case .packed(let location):
                return .needle(state.packs.locate(location, size: reference.size, digest: chunk.digest, layout: layout))
            case .loose: return .loose
            case .chunked: return .missing
            }
        }
        return ChunkedRead(recipe: recipe, located: located, sources: sources)
    }
}
