import Dispatch
import Synchronization

/// A large value as the list of its content-defined chunks: what a chunked value is to be kept
/// as, each chunk stored once by its SHA-256 (docs/design.md, "Content-defined chunking"; the
/// store does not write recipes yet).
///
/// ```
/// recipe := "BLOBRCPE" version:u32le(1) chunker:u8(1) minimum:varint average:varint
///           maximum:varint length:u64le value_digest:32 count:varint
///           (chunk_digest:32 chunk_length:varint){count} masked_crc32c(all before):u32le
/// ```
///
/// `chunker` 1 is ``ContentDefinedChunker`` with ``GearTable``; the parameters are the ones the
/// value was cut with. A recipe has one encoding and describes a value exactly as the chunker
/// cut it: at least one chunk, every chunk 1 to `maximum` bytes and all but the last at least
/// `minimum`, the lengths adding up to `length`. The value's digest was computed from the same
/// bytes as the chunks' at write time, so a reader that checks every chunk against its digest
/// has checked the value.
package struct ChunkRecipe: Equatable, Sendable {
    static let magic: [UInt8] = Array("BLOBRCPE".utf8)
    static let version: UInt32 = 1
    /// The code of ``ContentDefinedChunker`` with ``GearTable``.
    static let chunkerCode: UInt8 = 1

    package struct Chunk: Equatable, Sendable {
        package let digest: SHA256Digest
        package let length: Int
    }

    package let parameters: ChunkingParameters
    /// The whole value's SHA-256: its address, as for any value.
    package let digest: SHA256Digest
    package let length: Int
    package let chunks: [Chunk]
    /// Where each chunk begins in the value, and the value's length last (`chunks.count + 1`).
    package let offsets: [Int]

    package init(parameters: ChunkingParameters, digest: SHA256Digest, chunks: [Chunk]) {
        self.parameters = parameters
        self.digest = digest
        self.chunks = chunks
        self.offsets = Self.offsets(of: chunks.map(\.length))
        self.length = offsets.last!
    }

    /// Where chunks of `lengths` begin, and where the last ends.
    private static func offsets(of lengths: [Int]) -> [Int] {
        var offsets = [0]
        offsets.reserveCapacity(lengths.count + 1)
        for length in lengths { offsets.append(offsets.last! + length) }
        return offsets
    }

    /// Hashes chunks of `bytes` (bounded by `offsets`) until none is left, each the next index
    /// `next` hands out, so that several threads share the work; `hashed` gets each index and digest.
    private static func hashChunks(
        of bytes: UnsafeRawBufferPointer, _ offsets: [Int], taking next: borrowing Atomic<Int>,
        _ hashed: (Int, SHA256Digest) -> Void
    ) {
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < offsets.count - 1 else { return }
            let chunk = UnsafeRawBufferPointer(rebasing: bytes[offsets[index]..<offsets[index + 1]])
            hashed(index, SHA256Hasher.hash(chunk))
        }
    }

    /// The chunks that hold the bytes of `range` (within `0..<length`): a verified range read
    /// checks these only.
    package func chunkIndices(covering range: Range<Int>) -> Range<Int> {
        precondition(range.lowerBound >= 0 && range.upperBound <= length, "a range within the value")
        guard !range.isEmpty else { return 0..<0 }
        return chunk(at: range.lowerBound)..<(chunk(at: range.upperBound - 1) + 1)
    }

    /// The index of the chunk that holds byte `offset`: a binary search of ``offsets``.
    private func chunk(at offset: Int) -> Int {
        var (low, high) = (0, chunks.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if offsets[middle] <= offset { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The first chunk of `bytes` (the value, `length` bytes) whose SHA-256 is not its recipe's,
    /// `nil` when all match: the chunks are hashed on up to `workers` threads at once, each
    /// taking the next chunk not yet taken, in place (nothing is copied).
    package func firstDamagedChunk(in bytes: UnsafeRawBufferPointer, workers: Int) -> Int? {
        precondition(bytes.count == length, "the value's bytes")
        nonisolated(unsafe) let shared = bytes
        let next = Atomic<Int>(0)
        let damaged = Atomic<Int>(Int.max)
        DispatchQueue.concurrentPerform(iterations: max(1, min(workers, chunks.count))) { _ in
            Self.hashChunks(of: shared, offsets, taking: next) { index, digest in
                if digest != chunks[index].digest { damaged.min(index, ordering: .relaxed) }
            }
        }
        let found = damaged.load(ordering: .relaxed)
        return found == Int.max ? nil : found
    }

    package func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.reserve(80 + chunks.count * 36)
        writer.raw(Self.magic)
        writer.u32(Self.version)
        writer.u8(Self.chunkerCode)
        writer.varint(UInt64(parameters.minimum))
        writer.varint(UInt64(parameters.average))
        writer.varint(UInt64(parameters.maximum))
        writer.u64(UInt64(length))
        writer.digest(digest)
        writer.varint(UInt64(chunks.count))
        for chunk in chunks {
            writer.digest(chunk.digest)
            writer.varint(UInt64(chunk.length))
        }
        SealedBytes.seal(&writer)
        return writer.bytes
    }

    /// Decodes `bytes`; `nil` for anything but a whole, checked recipe.
    package static func decode(_ bytes: [UInt8]) -> ChunkRecipe? {
        SealedBytes.open(bytes) { (reader: inout ByteReader) throws(ByteReader.Failure) in try decode(&reader) }
    }

    private static func decode(_ reader: inout ByteReader) throws(ByteReader.Failure) -> ChunkRecipe {
        for byte in magic where try reader.u8() != byte { throw .init(reason: "not a recipe") }
        guard try reader.u32() == version else { throw .init(reason: "another version") }
        guard try reader.u8() == chunkerCode else { throw .init(reason: "an unknown chunker") }
        let limit = ChunkingParameters.largestMaximum
        guard
            let parameters = ChunkingParameters(
                minimum: try reader.count(limit: limit, what: "minimum"),
                average: try reader.count(limit: limit, what: "average"),
                maximum: try reader.count(limit: limit, what: "maximum"))
        else { throw .init(reason: "chunking parameters out of range") }
        let length = try reader.u64()
        let digest = try reader.digest()
        let count = try reader.count(limit: reader.remaining / 33, what: "chunks")
        guard count > 0 else { throw .init(reason: "no chunk") }
        var chunks: [Chunk] = []
        chunks.reserveCapacity(count)
        var total: UInt64 = 0
        for index in 0..<count {
            let chunkDigest = try reader.digest()
            let chunkLength = try reader.count(limit: parameters.maximum, what: "a chunk's length")
            guard chunkLength > 0, index == count - 1 || chunkLength >= parameters.minimum else {
                throw .init(reason: "a chunk shorter than the minimum")
            }
            total += UInt64(chunkLength)
            chunks.append(Chunk(digest: chunkDigest, length: chunkLength))
        }
        guard total == length else { throw .init(reason: "chunk lengths that do not add up to the value's") }
        guard reader.isAtEnd else { throw .init(reason: "trailing bytes") }
        return ChunkRecipe(parameters: parameters, digest: digest, chunks: chunks)
    }
}
