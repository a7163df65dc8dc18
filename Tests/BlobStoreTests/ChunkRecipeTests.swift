import Dispatch
import Synchronization
import Testing

@testable import BlobStore

/// The recipe of a chunked value (docs/design.md, "Content-defined chunking"): its encoding,
/// the chunks a range touches, and verification of a value's chunks on several threads.
@Suite struct ChunkRecipeTests {
    private let parameters = ChunkingParameters(minimum: 1024, average: 4096, maximum: 16_384)!

    private func recipe(_ bytes: [UInt8]) -> ChunkRecipe {
        bytes.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters) }
    }

    @Test func aRecipeDescribesItsValueAndRoundTrips() {
        let value = SplitMix64.bytes(200_000, seed: 1)
        let made = recipe(value)
        #expect(made.length == value.count)
        #expect(made.digest == value.withUnsafeBytes { SHA256Hasher.hash($0) })
        #expect(made.chunks.count > 10)
        #expect(made.offsets.last == value.count)
        let encoded = made.encoded()
        // Magic, version, chunker, the parameters' varints (1024, 4096, 16384: 2, 2 and 3 bytes), the
        // length, the digest, the count, each chunk's digest and length, the checksum.
        func varintSize(_ value: Int) -> Int { value < 128 ? 1 : value < 16_384 ? 2 : 3 }
        let chunkBytes = made.chunks.reduce(0) { $0 + 32 + varintSize($1.length) }
        #expect(encoded.count == 8 + 4 + 1 + 7 + 8 + 32 + varintSize(made.chunks.count) + chunkBytes + 4)
        #expect(ChunkRecipe.decode(encoded) == made)
    }

    @Test(arguments: [1, 2, 3, 8])
    func aRecipeMadeOnSeveralThreadsIsTheChunksDigests(workers: Int) {
        let value = SplitMix64.bytes(300_000, seed: 8)
        let made = value.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters, workers: workers) }
        // Worked out one chunk at a time here.
        var start = 0
        let expected = value.withUnsafeBytes { bytes in
            ContentDefinedChunker.lengths(of: bytes, parameters).map { length in
                defer { start += length }
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
                return ChunkRecipe.Chunk(digest: SHA256Hasher.hash(chunk), length: length)
            }
        }
        #expect(made.chunks == expected)
        #expect(made.digest == value.withUnsafeBytes { SHA256Hasher.hash($0) })
        // A value shorter than the minimum is one chunk.
        let short = Array(value.prefix(10))
        #expect(short.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters, workers: workers) }.chunks.count == 1)
    }

    @Test(arguments: [1, 2, 8])
    func chunksArePlacedInOrderAsTheyAreHashed(workers: Int) {
        // Several cut pieces (ChunkRecipe.cutPiece), so chunks are hashed while others are cut.
        let value = SplitMix64.bytes(3 * ChunkRecipe.cutPiece + 12_345, seed: 10)
        nonisolated(unsafe) var placed: [(Int, ChunkRecipe.Chunk, [UInt8])] = []
        let made = value.withUnsafeBytes { bytes in
            ChunkRecipe.make(of: bytes, parameters, workers: workers) { (index, chunk, piece) throws(Never) in
                placed.append((index, chunk, Array(piece)))
            }
        }
        #expect(made == recipe(value))
        #expect(placed.map(\.0) == Array(made.chunks.indices))
        #expect(placed.map(\.1) == made.chunks)
        #expect(
            placed.allSatisfy { index, _, piece in piece[...] == value[made.offsets[index]..<made.offsets[index + 1]] })
        // A digest the caller knows is taken as it is.
        let known = SHA256Digest(bytes: [UInt8](repeating: 7, count: 32))!
        #expect(
            value.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters, workers: workers, digest: known) }.digest
                == known)
    }

    @Test(arguments: [1, 2, 8])
    func theFirstPlacingErrorStopsThePlacingAndIsThrown(workers: Int) {
        struct Full: Error, Equatable {}
        let value = SplitMix64.bytes(2 * ChunkRecipe.cutPiece, seed: 11)
        nonisolated(unsafe) var placed: [Int] = []
        #expect(throws: Full()) {
            _ = try value.withUnsafeBytes { bytes in
                try ChunkRecipe.make(of: bytes, parameters, workers: workers) { (index, _, _) throws(Full) in
                    if index == 40 { throw Full() }
                    placed.append(index)
                }
            }
        }
        #expect(placed == Array(0..<40))
    }

    @Test func recipesMadeInsideOtherParallelWorkFinish() {
        // More tasks than threads, and the tasks of each recipe started in any order: the one that
        // cuts is the first to run, so none waits for a task that has not started.
        let value = SplitMix64.bytes(50_000, seed: 9)
        let expected = recipe(value)
        let made = Mutex<[ChunkRecipe]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let one = value.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters, workers: 8) }
            made.withLock { $0.append(one) }
        }
        #expect(made.withLock { $0 } == Array(repeating: expected, count: 16))
    }

    @Test func damagedOrInconsistentRecipesAreRefused() {
        let made = recipe(SplitMix64.bytes(100_000, seed: 2))
        let encoded = made.encoded()
        // Any bit flipped: the checksum.
        for index in stride(from: 0, to: encoded.count, by: 7) {
            var flipped = encoded
            flipped[index] ^= 0x10
            #expect(ChunkRecipe.decode(flipped) == nil)
        }
        #expect(ChunkRecipe.decode(Array(encoded.dropLast())) == nil)
        #expect(ChunkRecipe.decode([]) == nil)
        // Checksummed but inconsistent: the value's length one more than its chunks'.
        var longer = encoded
        let lengthAt = 8 + 4 + 1 + 7
        longer[lengthAt] &+= 1
        #expect(ChunkRecipe.decode(SealedBytes.resealed(longer)) == nil)
        // A chunk over the maximum, and one under the minimum before the last.
        let big = ChunkRecipe(
            parameters: parameters, digest: made.digest,
            chunks: [.init(digest: made.digest, length: parameters.maximum + 1)])
        #expect(ChunkRecipe.decode(big.encoded()) == nil)
        let short = ChunkRecipe(
            parameters: parameters, digest: made.digest,
            chunks: [.init(digest: made.digest, length: 10), .init(digest: made.digest, length: 2000)])
        #expect(ChunkRecipe.decode(short.encoded()) == nil)
        // Trailing bytes under a good checksum.
        #expect(ChunkRecipe.decode(SealedBytes.resealed(Array(encoded.dropLast(4)) + [0, 0, 0, 0, 0])) == nil)
    }

    @Test func aRangeTouchesTheChunksThatHoldItsBytes() {
        let made = recipe(SplitMix64.bytes(300_000, seed: 3))
        var random = SplitMix64(seed: 4)
        for _ in 0..<500 {
            let start = Int(random.next() % UInt64(made.length))
            let end = min(made.length, start + 1 + Int(random.next() % 20_000))
            let indices = made.chunkIndices(covering: start..<end)
            // The first chunk holds `start`, the last holds `end - 1`.
            #expect(made.offsets[indices.lowerBound] <= start && start < made.offsets[indices.lowerBound + 1])
            #expect(made.offsets[indices.upperBound - 1] < end && end <= made.offsets[indices.upperBound])
        }
        #expect(made.chunkIndices(covering: 0..<made.length) == 0..<made.chunks.count)
        #expect(made.chunkIndices(covering: 5..<5).isEmpty)
    }

    @Test(arguments: [1, 2, 8])
    func verificationOnSeveralThreadsFindsTheFirstDamagedChunk(workers: Int) {
        var value = SplitMix64.bytes(400_000, seed: 5)
        let made = recipe(value)
        #expect(value.withUnsafeBytes { made.firstDamagedChunk(in: $0, workers: workers) } == nil)
        // Two bytes flipped, in two chunks: the earlier one is reported.
        let late = made.offsets[made.chunks.count - 2] + 3
        let early = made.offsets[7] + 100
        value[late] ^= 1
        value[early] ^= 0x80
        #expect(value.withUnsafeBytes { made.firstDamagedChunk(in: $0, workers: workers) } == 7)
    }

    @Test func anEditedValueSharesItsRecipesChunksAwayFromTheEdit() {
        let value = SplitMix64.bytes(400_000, seed: 6)
        var edited = value
        edited.insert(contentsOf: SplitMix64.bytes(100, seed: 7), at: 200_000)
        let before = Set(recipe(value).chunks.map(\.digest))
        let after = recipe(edited).chunks
        let new = after.filter { !before.contains($0.digest) }
        #expect(new.count >= 1 && new.count <= 2)
        #expect(after.count - new.count >= recipe(value).chunks.count - 2)
    }
}
