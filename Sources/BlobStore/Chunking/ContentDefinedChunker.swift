/// Cuts a stream of bytes into content-defined chunks (FastCDC: Xia et al., "FastCDC: a fast and
/// efficient content-defined chunking approach for data deduplication", USENIX ATC 2016, with
/// normalized chunking at level 2): whether a byte ends a chunk depends on the 64 bytes before
/// it and on its distance from the last cut (no cut before the minimum, the mask that changes at
/// the average, the cut forced at the maximum), so an insertion or deletion changes the chunks
/// around it and, once a cut falls where it fell before, the cuts after it are the same. Bytes may arrive in pieces of any size: the cuts are those of the whole stream.
///
/// ```swift
/// var chunker = ContentDefinedChunker(ChunkingParameters(average: 64 << 10)!)
/// var lengths: [Int] = []
/// for piece in pieces { piece.withUnsafeBytes { chunker.append($0, lengths: &lengths) } }
/// if let last = chunker.finish() { lengths.append(last) }
/// ```
package struct ContentDefinedChunker: Sendable {
    package let parameters: ChunkingParameters
    /// The gear hash of the current chunk's bytes after its first ``ChunkingParameters/minimum``.
    private var hash: UInt64 = 0
    /// The bytes of the current chunk so far.
    private var length = 0

    package init(_ parameters: ChunkingParameters) {
        self.parameters = parameters
    }

    /// Takes the next bytes of the stream and appends to `lengths` the length of each chunk that
    /// ends in them.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, lengths: inout [Int]) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let count = bytes.count
        let (minimum, average, maximum) = (parameters.minimum, parameters.average, parameters.maximum)
        let (smallMask, largeMask) = (parameters.smallMask, parameters.largeMask)
        GearTable.values.withUnsafeBufferPointer { gear in
            let gear = gear.baseAddress!
            var index = 0
            while index < count {
                if length < minimum {
                    // The first bytes of a chunk are never a cut, and not hashed (FastCDC's skip).
                    let skipped = min(minimum - length, count - index)
                    index += skipped
                    length += skipped
                    continue
                }
                let (mask, boundary) = length < average ? (smallMask, average) : (largeMask, maximum)
                let end = min(count, index + (boundary - length))
                var position = index
                var cut = false
                var hash = self.hash
                while position < end {
                    hash = (hash << 1) &+ gear[Int(base[position])]
                    position += 1
                    if hash & mask == 0 {
                        cut = true
                        break
                    }
                }
                length += position - index
                index = position
                self.hash = hash
                if cut || length == maximum {
                    lengths.append(length)
                    length = 0
                    self.hash = 0
                }
            }
        }
    }

    /// Ends the stream: the length of its last chunk, `nil` when it ended at a cut (or was empty).
    /// The chunker starts a new stream afterwards.
    package mutating func finish() -> Int? {
        defer { (length, hash) = (0, 0) }
        return length > 0 ? length : nil
    }

    /// The lengths of the chunks of `bytes`, a whole stream.
    package static func lengths(of bytes: UnsafeRawBufferPointer, _ parameters: ChunkingParameters) -> [Int] {
        var chunker = ContentDefinedChunker(parameters)
        var lengths: [Int] = []
        chunker.append(bytes, lengths: &lengths)
        if let last = chunker.finish() { lengths.append(last) }
        return lengths
    }
}
