import Foundation

/// A chunked value opened for reading in pieces (docs/design.md, "Chunked values"): from
/// ``BlobStorage/entry(for:readingUpTo:)`` for a value larger than the read holds in memory.
/// Each ``read(_:)`` copies and verifies only the chunks that hold the bytes asked for, so that a
/// server sends a range of a large value, or the whole of it a piece at a time, without reading
/// the rest of it first and without handing out a byte that was not checked.
///
/// Where every chunk is was found when the value was opened, and the packs that hold them stay
/// mapped while this lives: the reads see the value that was opened, whatever other writers do
/// to the key meanwhile.
public struct ChunkedValue: Sendable {
    /// The value's length in bytes.
    public var count: Int { located.recipe.length }
    /// The recipe and where each chunk is.
    let located: ChunkedRead
    /// The store it was opened in, which repairs what a read finds damaged.
    let store: BlobStore

    init(_ located: ChunkedRead, in store: BlobStore) {
        precondition(located.located == 0..<located.recipe.chunks.count, "every chunk located")
        self.located = located
        self.store = store
    }

    /// The bytes of `range` of the value (cut to its end), verified chunk by chunk unless the
    /// store's ``BlobStore/Configuration/verifyReads`` is off; `nil` when a chunk they need is
    /// missing or damaged (the store then drops every entry of the value, as any read does).
    ///
    /// - Throws: `BlobStoreError` when the store fails to repair what it found.
    public func read(_ range: Range<Int>) throws -> Data? {
        precondition(range.lowerBound >= 0, "a range of the value's bytes")
        let wanted = range.clamped(to: 0..<count)
        guard !wanted.isEmpty else { return Data() }
        let chunks = ChunkedRead.chunks(of: located.recipe, covering: wanted)
        let result = located.read(chunks, verify: store.configuration.verifyReads, content: store.content)
        guard let data = try store.settle(result, digest: located.recipe.digest).value else { return nil }
        let base = located.recipe.offsets[chunks.lowerBound]
        return base == wanted.lowerBound && data.count == wanted.count
            ? data : data.subdata(in: wanted.lowerBound - base..<wanted.upperBound - base)
    }

    /// `range` (cut to the value's end) in the pieces a reader that keeps its memory flat reads
    /// one at a time with ``read(_:)``: about `bytes` each, cut where chunks end, so that no chunk
    /// is read twice (a chunk larger than `bytes` makes a piece of its own).
    public func pieces(of range: Range<Int>, about bytes: Int = 1 << 20) -> [Range<Int>] {
        precondition(range.lowerBound >= 0 && bytes > 0, "pieces of a range of the value")
        let wanted = range.clamped(to: 0..<count)
        let offsets = located.recipe.offsets
        var pieces: [Range<Int>] = []
        var start = wanted.lowerBound
        while start < wanted.upperBound {
            var end = ChunkedRead.chunks(of: located.recipe, covering: start..<start + 1).lowerBound + 1
            while end < located.recipe.chunks.count, offsets[end + 1] - start <= bytes { end += 1 }
            let stop = min(offsets[end], wanted.upperBound)
            pieces.append(start..<stop)
            start = stop
        }
        return pieces
    }
}
