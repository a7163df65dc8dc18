import Foundation
import Testing

@testable import BlobStore

/// The content-defined chunker (docs/design.md, "Content-defined chunking"): its cuts are part
/// of what a store keeps, so the table and a list of cuts are pinned here; the rest checks the
/// properties dedup relies on.
@Suite struct ChunkerTests {
    private func lengths(_ bytes: [UInt8], _ parameters: ChunkingParameters) -> [Int] {
        bytes.withUnsafeBytes { ContentDefinedChunker.lengths(of: $0, parameters) }
    }

    /// The chunks of `bytes` cut at `lengths`.
    private func chunks(_ bytes: [UInt8], _ lengths: [Int]) -> [ArraySlice<UInt8>] {
        var start = 0
        return lengths.map { length in
            defer { start += length }
            return bytes[start..<(start + length)]
        }
    }

    @Test func theGearTableAndTheCutsArePinned() {
        // Changing either would make values cut anew share nothing with what stores hold.
        #expect(GearTable.values.count == 256)
        #expect(GearTable.values.prefix(3) == [0xc6ad_f699_9c42_1bd9, 0x78e4_0b1e_a6b7_8fed, 0xd98a_3aa6_ce4c_1679])
        let parameters = ChunkingParameters(average: 16 << 10)!
        #expect(
            lengths(SplitMix64.bytes(1 << 20, seed: 7), parameters).prefix(12) == [
                16637, 18544, 18178, 22778, 22483, 10256, 21429, 32715, 16992, 20952, 18783, 27283,
            ])
    }

    @Test func parametersOutsideTheirRangesAreRefused() {
        #expect(ChunkingParameters(minimum: 1024, average: 3000, maximum: 8192) == nil)  // not a power of two
        #expect(ChunkingParameters(minimum: 4096, average: 4096, maximum: 8192) == nil)
        #expect(ChunkingParameters(minimum: 1024, average: 4096, maximum: 4096) == nil)
        #expect(ChunkingParameters(minimum: 32, average: 4096, maximum: 8192) == nil)
        #expect(ChunkingParameters(average: 128) == nil)
        #expect(ChunkingParameters(average: 128 << 20) == nil)
        #expect(ChunkingParameters(average: Int.max / 2) == nil)
        #expect(ChunkingParameters(minimum: 64, average: 256, maximum: (1 << 30) + 1) == nil)
        #expect(ChunkingParameters(minimum: 64, average: 256, maximum: 1 << 30) != nil)
        let parameters = ChunkingParameters(average: 64 << 10)
        #expect(parameters?.minimum == 16 << 10 && parameters?.maximum == 256 << 10)
    }

    @Test func chunksStayWithinTheirBoundsAndCoverTheStream() {
        let parameters = ChunkingParameters(average: 16 << 10)!
        let bytes = SplitMix64.bytes(16 << 20, seed: 8)
        let found = lengths(bytes, parameters)
        #expect(found.reduce(0, +) == bytes.count)
        #expect(found.dropLast().allSatisfy { $0 >= parameters.minimum && $0 <= parameters.maximum })
        #expect(found.last! <= parameters.maximum)
        // Normalized chunking keeps the mean near the average (the skipped minimum adds a little).
        let mean = Double(bytes.count) / Double(found.count)
        #expect(mean > Double(parameters.average) * 0.9 && mean < Double(parameters.average) * 1.4)
    }

    @Test func bytesWithoutCutsAreCutAtTheMaximum() {
        let parameters = ChunkingParameters(average: 16 << 10)!
        let found = lengths([UInt8](repeating: 0, count: 1 << 20), parameters)
        #expect(found == Array(repeating: parameters.maximum, count: (1 << 20) / parameters.maximum))
    }

    @Test func shortAndEmptyStreams() {
        let parameters = ChunkingParameters(average: 16 << 10)!
        #expect(lengths([], parameters) == [])
        #expect(lengths(SplitMix64.bytes(100, seed: 1), parameters) == [100])
        #expect(lengths(SplitMix64.bytes(parameters.minimum, seed: 1), parameters) == [parameters.minimum])
        var chunker = ContentDefinedChunker(parameters)
        #expect(chunker.finish() == nil)
    }

    @Test(arguments: [1, 7, 4096, 65_537])
    func piecesOfAnySizeCutAsTheWholeStream(piece: Int) {
        let parameters = ChunkingParameters(minimum: 1000, average: 4096, maximum: 10_000)!
        let bytes = SplitMix64.bytes(1 << 20, seed: 9)
        var random = SplitMix64(seed: UInt64(piece))
        var chunker = ContentDefinedChunker(parameters)
        var found: [Int] = []
        var start = 0
        while start < bytes.count {
            // Pieces around `piece` bytes, of varying size.
            let end = min(bytes.count, start + 1 + Int(random.next() % UInt64(2 * piece)))
            bytes[start..<end].withUnsafeBytes { chunker.append($0, lengths: &found) }
            start = end
        }
        if let last = chunker.finish() { found.append(last) }
        #expect(found == lengths(bytes, parameters))
    }

    @Test func anInsertionChangesOnlyTheChunksAroundIt() {
        let parameters = ChunkingParameters(average: 16 << 10)!
        let old = SplitMix64.bytes(8 << 20, seed: 10)
        var new = old
        var random = SplitMix64(seed: 11)
        // Ten insertions of 100 bytes at random places.
        for _ in 0..<10 {
            let at = Int(random.next() % UInt64(new.count))
            new.insert(contentsOf: SplitMix64.bytes(100, seed: random.next()), at: at)
        }
        let oldChunks = Set(chunks(old, lengths(old, parameters)))
        let newChunks = chunks(new, lengths(new, parameters))
        let added = newChunks.filter { !oldChunks.contains($0) }
        // Each insertion changes the chunk it falls in (two may fall in one), and at times the next.
        #expect(added.count >= 1 && added.count <= 20)
        #expect(added.reduce(0) { $0 + $1.count } < new.count / 20)
    }
}
