import Foundation

/// A chunked value opened for reading in pieces (docs/design.md, "Chunked values"): from
/// ``BlobStorage/entry(for:readingUpTo:)`` for a value larger than the read holds in memory.
/// Each ``read(_:)`` finds, copies and verifies only the chunks that hold the bytes asked for, so
/// that a server sends a range of a large value, or the whole of it a piece at a time, without
/// reading the rest of it first and without handing out a byte that was not checked.
///
/// The recipe is the one the value had when it was opened; each read finds its chunks where the
/// store has them then (a repack may have moved them). Chunks are content: whatever writers do,
/// a read returns the opened value's bytes, or `nil` once its chunks are gone (the value was
/// removed and its chunks' disk reclaimed) or found damaged.
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

    /// The bytes of `range` of the value (cut to its end), verified chunk by chunk unless the
    /// store's ``BlobStore/Configuration/verifyReads`` is off; `nil` when a chunk they need is
    /// gone, or damaged (the store then drops every entry of the value, as any read of damage
    /// does).
    ///
    /// - Throws: `BlobStoreError` when the store fails to catch up with other processes or to
    ///   repair what it found.
    public func read(_ range: Range<Int>) throws -> Data? {
        precondition(range.lowerBound >= 0, "a range of the value's bytes")
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return Data() }
        let chunks = ChunkedRead.chunks(of: recipe, covering: wanted)
        let located = try store.locateChunks(chunks, of: recipe)
        let result = located.read(chunks, verify: store.configuration.verifyReads, content: store.content)
        // A chunk gone is a value removed meanwhile, not damage: nothing to repair.
        guard let data = try store.settle(result, digest: recipe.digest, repairingMissing: false).value else {
            return nil
        }
        let base = recipe.offsets[chunks.lowerBound]
        return base == wanted.lowerBound && data.count == wanted.count
            ? data : data.subdata(in: wanted.lowerBound - base..<wanted.upperBound - base)
    }

    /// `range` (cut to the value's end) in the pieces a reader that keeps its memory flat reads
    /// one at a time with ``read(_:)``: about `bytes` each, cut where chunks end, so that no chunk
    /// is read twice (a chunk larger than `bytes` makes a piece of its own).
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
}

extension BlobStore {
    /// Where chunks `chunks` of `recipe` are now, found under the mutex after catching up; when
    /// one is not where the index said (another process repacked it), caught up and found again.
    func locateChunks(_ chunks: Range<Int>, of recipe: ChunkRecipe) throws -> ChunkedRead {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            let located = locateChunks(chunks, of: recipe, &state)
            guard located.isMissingAChunk else { return located }
            try state.catchUp(layout: layout)
            return locateChunks(chunks, of: recipe, &state)
        }
    }
}
