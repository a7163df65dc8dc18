import Foundation

/// A chunked value opened for reading in pieces (docs/design.md, "Chunked values"): from
/// ``BlobStorage/entry(for:readingUpTo:)`` for a value larger than the read holds in memory.
/// A read finds, copies and verifies only the chunks that hold the bytes asked for, so that a
/// server sends a range of a large value, or the whole of it a piece at a time, without reading
/// the rest of it first and without handing out a byte that was not checked.
///
/// Opening it keeps only the recipe. ``locate(_:)`` finds where the chunks of a range are, at
/// once, and keeps their packs mapped: the ``Located`` range reads whatever writers do after it
/// (a key overwritten or removed, a repack). ``read(_:)`` locates and reads in one call.
///
/// The hit was counted when the value was opened; a read that then finds a chunk damaged
/// counts a damaged read and a miss too, and drops the value's entries, as any read of damage
/// does.
public struct ChunkedValue: Sendable {
    /// The value's length in bytes.
    public var count: Int { recipe.length }
    /// The value's recipe.
    let recipe: ChunkRecipe
    /// The store it was opened in.
    let store: BlobStore

    init(_ recipe: ChunkRecipe, in store: BlobStore) {
        self.recipe = recipe
        self.store = store
    }

    /// The chunks that hold `range` (cut to the value's end), found where the store has them
    /// now; `nil` when one is gone (the value was removed, and nothing else names the chunk)
    /// or, while the value is live, missing (then it is damage: the value's entries are dropped).
    ///
    /// - Throws: `BlobStoreError` when the store fails to catch up or to repair.
    public func locate(_ range: Range<Int>) throws -> Located? {
        precondition(range.lowerBound >= 0, "a range of the value's bytes")
        let wanted = range.clamped(to: 0..<count)
        let chunks = ChunkedRead.chunks(of: recipe, covering: wanted)
        let (located, isLive) = try store.locateChunks(chunks, of: recipe)
        guard located.isMissingAChunk else { return Located(value: self, range: wanted, chunks: located) }
        // A live value names its chunks: one missing is damage. A value removed may have
        // released them: nothing to repair.
        _ = try store.settle(.missing, digest: recipe.digest, repairingMissing: isLive)
        return nil
    }

    /// The bytes of `range` of the value (cut to its end), verified chunk by chunk unless the
    /// store's ``BlobStore/Configuration/verifyReads`` is off: ``locate(_:)``, then
    /// ``Located/read(_:)``; `nil` as either gives it.
    ///
    /// - Throws: `BlobStoreError` when the store fails to catch up or to repair.
    public func read(_ range: Range<Int>) throws -> Data? {
        try locate(range)?.read(range)
    }

    /// `range` (cut to the value's end) in the pieces a reader that keeps its memory flat reads
    /// one at a time: about `bytes` each, cut where chunks end, so that no chunk is read twice
    /// (a chunk larger than `bytes` makes a piece of its own).
    public func pieces(of range: Range<Int>, about bytes: Int = 1 << 20) -> [Range<Int>] {
        precondition(range.lowerBound >= 0 && bytes > 0, "pieces of a range of the value")
        let wanted = range.clamped(to: 0..<count)
        let offsets = recipe.offsets
        var pieces: [Range<Int>] = []
        var start = wanted.lowerBound
        while start < wanted.upperBound {
            var end = ChunkedRead.chunks(of: recipe, covering: start..<start + 1).lowerBound + 1
            while end < recipe.chunks.count, offsets[end + 1] - start <= bytes { end += 1 }
            let stop = min(offsets[end], wanted.upperBound)
            pieces.append(start..<stop)
            start = stop
        }
        return pieces
    }

    /// A range of a ``ChunkedValue`` whose chunks were found (``ChunkedValue/locate(_:)``): its
    /// reads need no lookup, and the packs stay mapped while it lives.
    public struct Located: Sendable {
        let value: ChunkedValue
        /// The range located.
        public let range: Range<Int>
        let chunks: ChunkedRead

        /// The bytes of `part` (cut to ``range``), its chunks copied and verified; `nil` when one
        /// is damaged (the value's entries are then dropped).
        ///
        /// - Throws: `BlobStoreError` when the store fails to repair.
        public func read(_ part: Range<Int>) throws -> Data? {
            let store = value.store
            let result = chunks.read(
                bytes: part.clamped(to: range), verify: store.configuration.verifyReads, content: store.content)
            return try store.settle(result, digest: value.recipe.digest).value
        }
    }
}

extension BlobStore {
    /// Where chunks `chunks` of `recipe` are now, found under the mutex after catching up (and
    /// caught up again when one is not where the index said: another process repacked it), and
    /// whether the value is still live.
    func locateChunks(_ chunks: Range<Int>, of recipe: ChunkRecipe) throws -> (ChunkedRead, isLive: Bool) {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            var located = locateChunks(chunks, of: recipe, &state)
            if located.isMissingAChunk {
                try state.catchUp(layout: layout)
                located = locateChunks(chunks, of: recipe, &state)
            }
            return (located, state.index.blob(recipe.digest) != nil)
        }
    }
}
