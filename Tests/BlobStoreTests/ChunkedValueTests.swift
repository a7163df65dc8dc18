import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore

/// Values stored as content-defined chunks (docs/design.md, "Chunked values"): they read back
/// from the journal and from a manifest, share chunks, count each chunk once, free only what
/// nothing else uses, and a damaged chunk is a miss, never wrong bytes.
@Suite struct ChunkedValueTests {
    /// Values from 64 KiB on are chunked, at an 8 KiB average (2-32 KiB chunks).
    private let chunked = {
        var configuration = fast
        configuration.chunkThreshold = 64 << 10
        configuration.chunkSize = 8 << 10
        configuration.compactionMinimumJournalBytes = .max
        return configuration
    }()

    /// `key`'s value opened by its chunks (`entry(for:readingUpTo:)` with 1 MiB); `nil`, with
    /// an issue recorded, when it is not.
    private func openedByChunks(_ key: StoreKey, in store: BlobStore) throws -> ChunkedValue? {
        guard case .chunked(_, let opened)? = try store.entry(for: key, readingUpTo: 1 << 20) else {
            Issue.record("'\(key)' was not opened by its chunks")
            return nil
        }
        return opened
    }

    private func value(_ seed: UInt64, size: Int) -> Data {
        Data(SplitMix64.bytes(size, seed: seed))
    }

    /// `data` with 100 bytes of `seed` inserted at each of `places` evenly spread offsets.
    private func edited(_ data: Data, seed: UInt64, places: Int) -> Data {
        var result = Data()
        let step = data.count / (places + 1)
        for place in 0...places {
            result.append(data[(place * step)..<(place == places ? data.count : (place + 1) * step)])
            if place < places { result.append(value(seed + UInt64(place), size: 100)) }
        }
        return result
    }

    @Test func aChunkedValueReadsBackFromTheJournalAndFromAManifest() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(1, size: 1 << 20)
            let digest = try withStore(path, chunked) { store throws in
                let digest = try store.put(data, for: "k")
                #expect(digest == SHA256Hasher.hash(data))
                #expect(try store.value(for: "k") == data)
                #expect(try store.blob(digest) == data)
                return digest
            }
            // Chunks are needles: nothing under blobs/.
            #expect(regularFiles(under: path + "/blobs").isEmpty)
            try withStore(path, chunked) { store throws in
                #expect(try store.value(for: "k") == data, "replayed from the journal")
                let handle = try #require(try store.fileHandle(for: "k"))
                #expect(try handle.readToEnd() == data)
                try store.compact()
            }
            try withStore(path, fast) { store throws in
                #expect(try store.value(for: "k") == data, "read from the manifest, chunking off")
                #expect(try store.blob(digest) == data)
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func valuesThatShareMostBytesShareMostChunksAndCountThemOnce() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let original = value(2, size: 2 << 20)
            let changed = edited(original, seed: 100, places: 10)
            try withStore(path, chunked) { store throws in
                try store.put(original, for: "a")
                let one = try store.stats().storedBytes
                try store.put(changed, for: "b")
                let two = try store.stats().storedBytes
                #expect(one >= UInt64(original.count))
                // Ten 100-byte insertions touch at most two chunks each (at most 32 KiB apiece).
                #expect(two - one <= 20 * 32 << 10, "added \(two - one) bytes")
                #expect(try store.value(for: "a") == original)
                #expect(try store.value(for: "b") == changed)
                // Removing one frees only what the other does not use.
                try store.remove("b")
                try store.compact()
                #expect(try store.stats().storedBytes <= two)
                #expect(try store.value(for: "a") == original)
                try store.remove("a")
                try store.compact()
                #expect(try store.stats().distinctBlobs == 0)
                #expect(try store.stats().storedBytes == 0)
                _ = try store.collectGarbage(gracePeriod: .zero)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// `chunkStats()` counts each distinct chunk once, whether values share it or one repeats
    /// it, from the journal's changes and from a manifest alike; values stored whole are not in it.
    @Test func chunkStatsCountEachDistinctChunkOnce() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let original = value(30, size: 1 << 20)
            let changed = edited(original, seed: 130, places: 4)
            // One chunk's worth of bytes four times over: the value repeats its chunks.
            let block = value(31, size: 40 << 10)
            let repeated = block + block + block + block + value(32, size: 40 << 10)
            let three = try withStore(path, chunked) { store throws in
                #expect(try store.chunkStats() == ChunkStats())
                try store.put(original, for: "a")
                let one = try store.chunkStats()
                #expect(one.chunkedValues == 1 && one.chunkedBytes == UInt64(original.count))
                #expect(one.distinctChunkBytes == UInt64(original.count) && one.savedByChunkSharing == 0)
                #expect(one.distinctChunks > 1)
                try store.put(changed, for: "b")
                try store.put(changed, for: "b2")
                try store.put(value(33, size: 1000), for: "small")
                let two = try store.chunkStats()
                #expect(two.chunkedValues == 2, "the same value under two keys counts once")
                #expect(two.chunkedBytes == UInt64(original.count + changed.count))
                #expect(two.distinctChunks > one.distinctChunks)
                #expect(two.savedByChunkSharing > UInt64(original.count) / 2, "\(two)")
                try store.put(repeated, for: "r")
                let three = try store.chunkStats()
                #expect(three.distinctChunkBytes - two.distinctChunkBytes < UInt64(repeated.count))
                try store.compact()
                #expect(try store.chunkStats() == three, "the same from the manifest")
                return three
            }
            try withStore(path, fast) { store throws in
                #expect(try store.chunkStats() == three, "the same in another process")
                try store.remove("a")
                try store.remove("r")
                let left = try store.chunkStats()
                #expect(left.chunkedValues == 1 && left.distinctChunkBytes == UInt64(changed.count))
            }
        }
    }

    @Test func theSameContentUnderTwoKeysIsOneRecipe() throws {
        try withTemporaryDirectory { dir throws in
            let data = value(3, size: 300 << 10)
            try withStore(dir.child("s"), chunked) { store throws in
                try store.put(data, for: "a")
                let blobs = try store.stats().distinctBlobs
                let stored = try store.stats().storedBytes
                try store.put(data, for: "b")
                #expect(try store.stats().distinctBlobs == blobs)
                #expect(try store.stats().storedBytes == stored)
                try store.remove("a")
                #expect(try store.value(for: "b") == data)
                try store.compact()
                #expect(try store.value(for: "b") == data)
            }
        }
    }

    @Test func aDamagedChunkIsAMissAndItsEntryIsDropped() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(4, size: 512 << 10)
            let digest = try withStore(path, chunked) { store throws in try store.put(data, for: "k") }
            // A bit in the middle of the pack: inside some chunk's bytes.
            let pack = path + "/packs/pack-1"
            flipBit(pack, at: readBytes(pack).count / 2, bit: 3)
            try withStore(path, chunked) { store throws in
                guard case .damaged = try store.readEntry(for: "k") else {
                    Issue.record("the damaged chunk was not found")
                    return
                }
                #expect(try store.value(for: "k") == nil)
                #expect(try store.blob(digest) == nil)
                // Put again: the damaged chunk is written anew, the others are reused.
                try store.put(data, for: "k")
                #expect(try store.value(for: "k") == data)
            }
        }
    }

    /// A store of version 2 (written before chunked values): the current code writes the same
    /// bytes but for the version in the journal's and the manifest's headers, so this one is
    /// made by writing a store without chunked values and setting the version back to 2.
    @Test func aFormat2StoreReadsAsItIsAndItsFirstWriteUpgradesIt() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let values = [("small", value(5, size: 100)), ("loose", value(6, size: 200 << 10))]
            try withStore(path, fast) { store throws in
                for (key, data) in values { try store.put(data, for: StoreKey(key)) }
                try store.compact()
                try store.put(value(7, size: 1000), for: "journal")
            }
            for file in ["journal-2", "manifest-2"] {
                var bytes = readBytes(path + "/" + file)
                var header = try bytes.withUnsafeBytes {
                    try JournalHeader(parsing: $0, magic: Array(bytes[0..<8]))
                }
                #expect(header.version == 3)
                header.version = 2
                bytes.replaceSubrange(0..<JournalFormat.fileHeaderSize, with: header.encoded)
                writeBytes(path + "/" + file, bytes)
            }
            try withStore(path, chunked) { store throws in
                for (key, data) in values { #expect(try store.value(for: StoreKey(key)) == data) }
                #expect(try store.value(for: "journal") == value(7, size: 1000))
                #expect(try store.stats().generation == 2, "reading converts nothing")
                let large = value(8, size: 1 << 20)
                try store.put(large, for: "chunked")
                #expect(try store.stats().generation == 3, "the first write compacts into version 3")
                #expect(try store.value(for: "chunked") == large)
            }
            let header = try readBytes(path + "/journal-3").withUnsafeBytes { try JournalHeader(parsing: $0) }
            #expect(header.version == 3)
            try withStore(path, fast) { store throws in
                for (key, data) in values { #expect(try store.value(for: StoreKey(key)) == data) }
                #expect(try store.value(for: "chunked") == value(8, size: 1 << 20))
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func aFileURLOfAChunkedValueIsACopyThatGarbageCollectionDeletes() throws {
        try withTemporaryDirectory { dir throws in
            let data = value(9, size: 200 << 10)
            try withStore(dir.child("s"), chunked) { store throws in
                try store.put(data, for: "k")
                let url = try #require(try store.fileURL(for: "k"))
                #expect(try Data(contentsOf: url) == data)
                #expect(try store.verify().isClean)
                let report = try store.collectGarbage(gracePeriod: .zero)
                #expect(report.blobsDeleted == 1)
                #expect(!FileManager.default.fileExists(atPath: url.path))
                #expect(try store.value(for: "k") == data)
            }
        }
    }

    /// Under a capacity, chunked values are evicted like any other, and the chunks they share
    /// are counted once: the store stays within its capacity after every put, and what is left
    /// reads back.
    @Test func aCapacityHoldsWithChunkedValuesThatShareChunks() throws {
        try withTemporaryDirectory { dir throws in
            var configuration = chunked
            configuration.packSize = 1 << 20
            let capacity: UInt64 = 3 << 20
            configuration.limits = EvictionLimits(capacity: capacity)
            let base = value(10, size: 400 << 10)
            try withStore(dir.child("s"), configuration) { store throws in
                for index in 0..<20 {
                    let data =
                        index % 2 == 0
                        ? value(UInt64(20 + index), size: 400 << 10) : edited(base, seed: UInt64(index), places: 2)
                    try store.put(data, for: StoreKey("k\(index)"))
                    #expect(try store.stats().storedBytes <= capacity, "after put \(index)")
                    #expect(try store.value(for: StoreKey("k\(index)")) == data)
                }
                let live = try store.entries()
                #expect(live.count >= 4)
                for entry in live { #expect(try store.value(for: entry.key) != nil) }
                _ = try store.collectGarbage(gracePeriod: .zero)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// Values removed leave most of a pack dead; a collection rewrites it, moving the chunks
    /// still named, and the values made of them read back, before and after reopening.
    @Test func repackingMovesTheChunksOfLiveValues() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = chunked
            configuration.packSize = 1 << 20
            let values = (0..<6).map { value(UInt64(40 + $0), size: 300 << 10) }
            try withStore(path, configuration) { store throws in
                for (index, data) in values.enumerated() { try store.put(data, for: StoreKey("k\(index)")) }
                for index in [0, 2, 3, 5] { try store.remove(StoreKey("k\(index)")) }
                let report = try store.collectGarbage(gracePeriod: .zero)
                #expect(report.packsRewritten >= 1, "\(report)")
                #expect(report.needlesMoved >= 1, "\(report)")
                for index in [1, 4] { #expect(try store.value(for: StoreKey("k\(index)")) == values[index]) }
                #expect(try store.verify().isClean)
            }
            try withStore(path, fast) { store throws in
                for index in [1, 4] { #expect(try store.value(for: StoreKey("k\(index)")) == values[index]) }
            }
        }
    }

    /// A file or a stream is written to `tmp/` as it is read, then put as chunks: the temporary
    /// file goes, and the value shares its chunks with the same bytes put from memory.
    @Test func filesAndStreamsArePutAsChunks() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        do {
            let path = dir.child("s")
            // Larger than the 1 MiB a streamed put gathers in memory: it goes through tmp/.
            let data = value(11, size: 1536 << 10)
            let source = dir.child("source")
            writeBytes(source, Array(data))
            let store = try BlobStore(at: path, configuration: chunked)
            defer { try? store.close() }
            try await store.put(contentsOf: URL(fileURLWithPath: source), for: "file")
            let stored = try await store.stats().storedBytes
            try await store.put(data, for: "memory")
            let pieces = stride(from: 0, to: data.count, by: 100_000).map {
                Data(data[$0..<min($0 + 100_000, data.count)])
            }
            try await store.put(
                streaming: AsyncStream { continuation in
                    for piece in pieces { continuation.yield(piece) }
                    continuation.finish()
                }, for: "stream")
            #expect(try await store.stats().storedBytes == stored, "one copy of each chunk")
            for key in ["file", "memory", "stream"] { #expect(try await store.value(for: StoreKey(key)) == data) }
            #expect(regularFiles(under: path + "/blobs").isEmpty)
            #expect(regularFiles(under: path + "/tmp").isEmpty)
        }
    }

    /// A range of a chunked value reads and checks only the chunks that hold it: a damaged
    /// chunk elsewhere does not stop it, one inside it makes the read a miss. Ranges are cut at
    /// the value's end; values stored whole and packed ones read ranges too.
    @Test func rangesReadOnlyTheChunksThatHoldThem() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(12, size: 1 << 20)
            let whole = value(13, size: 200 << 10)
            let small = value(14, size: 1000)
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "chunked")
                try store.compact()
            }
            var configuration = fast
            configuration.compactionMinimumJournalBytes = .max
            try withStore(path, configuration) { store throws in
                try store.put(whole, for: "whole")
                try store.put(small, for: "small")
                var random = SplitMix64(seed: 15)
                for _ in 0..<50 {
                    let start = Int(random.next() % UInt64(data.count))
                    let length = Int(random.next() % 40_000)
                    let range = start..<min(data.count, start + length)
                    #expect(try store.value(for: "chunked", in: start..<start + length) == data[range])
                }
                #expect(try store.value(for: "chunked", in: (1 << 20) - 10..<(1 << 20) + 10) == data.suffix(10))
                #expect(try store.value(for: "chunked", in: 2 << 20..<3 << 20) == Data())
                #expect(try store.value(for: "chunked", in: 0..<0) == Data())
                #expect(try store.value(for: "whole", in: 5000..<9000) == whole[5000..<9000])
                #expect(try store.value(for: "small", in: 10..<20) == small[10..<20])
                #expect(try store.value(for: "absent", in: 0..<1) == nil)
            }
            // A bit flipped in the first chunk's needle (the pack's first needle): ranges in
            // the last chunk still read, a range in the first one is damaged.
            flipBit(path + "/packs/pack-1", at: 24 + 36 + 100, bit: 1)
            try withStore(path, configuration) { store throws in
                #expect(try store.value(for: "chunked", in: data.count - 100..<data.count) == data.suffix(100))
                guard case .damaged = try store.readRange(0..<10, of: "chunked") else {
                    Issue.record("a range over the damaged chunk was not found damaged")
                    return
                }
                #expect(
                    try store.value(for: "chunked", in: data.count - 100..<data.count) == nil, "the entry was dropped")
            }
        }
    }

    /// A chunked value opened by `entry(for:readingUpTo:)` reads any range, and in pieces cut
    /// where chunks end; a damaged chunk makes the read that needs it `nil` (and drops the
    /// entry) while ranges before it read.
    @Test func anOpenedChunkedValueReadsRangesAndPieces() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(34, size: 3 << 20)
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "k")
                guard let opened = try openedByChunks("k", in: store) else { return }
                var random = SplitMix64(seed: 35)
                for _ in 0..<40 {
                    let start = Int(random.next() % UInt64(data.count))
                    let range = start..<min(data.count, start + Int(random.next() % 100_000))
                    #expect(try opened.read(range) == data[range])
                }
                #expect(try opened.read(data.count - 5..<data.count + 5) == data.suffix(5))
                #expect(try opened.read(data.count..<data.count + 5) == Data())
                // Pieces cover the range exactly, in order, each ending where a chunk ends but the last.
                let range = 1000..<(data.count - 1000)
                let pieces = opened.pieces(of: range, about: 100 << 10)
                #expect(pieces.first?.lowerBound == range.lowerBound && pieces.last?.upperBound == range.upperBound)
                #expect(zip(pieces, pieces.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
                #expect(pieces.dropLast().allSatisfy { $0.count <= 100 << 10 + 32 << 10 })
                #expect(pieces.count >= range.count / (100 << 10))
                // Its chunks moved by a repack (another value shares the pack, then leaves):
                // each read finds them where they are now.
                try store.put(value(36, size: 8 << 20), for: "other")
                try store.remove("other")
                _ = try store.collectGarbage(gracePeriod: .zero)
                #expect(!FileManager.default.fileExists(atPath: path + "/packs/pack-1"), "repacked")
                #expect(try opened.read(range) == data[range])
                // The last needle of the newest pack is the value's last chunk: damaged, reads
                // that need it fail, the others still read from the opened value.
                let packs = try FileManager.default.contentsOfDirectory(atPath: path + "/packs").sorted {
                    $0.count != $1.count ? $0.count < $1.count : $0 < $1
                }
                let pack = path + "/packs/" + packs.last!
                flipBit(pack, at: readBytes(pack).count - 10, bit: 5)
                #expect(try opened.read(0..<1000) == data.prefix(1000))
                #expect(try opened.read(data.count - 10..<data.count) == nil)
                #expect(try store.value(for: "k") == nil, "the entry was dropped")
            }
        }
    }

    /// A chunked value opened and then removed reads as gone (`nil`), with nothing repaired;
    /// another key with the same content keeps it readable.
    @Test func anOpenedChunkedValueRemovedMeanwhileReadsAsGone() throws {
        try withTemporaryDirectory { dir throws in
            let data = value(37, size: 2 << 20)
            try withStore(dir.child("s"), chunked) { store throws in
                try store.put(data, for: "a")
                try store.put(data, for: "b")
                guard let opened = try openedByChunks("a", in: store) else { return }
                try store.remove("a")
                #expect(try opened.read(0..<100) == data.prefix(100), "still under b")
                try store.remove("b")
                #expect(try opened.read(0..<100) == nil)
                #expect(try store.stats().damagedReads == 0)
            }
        }
    }

    /// A pack cut short under a live chunked value (found so by a process that maps it after):
    /// locating a range whose chunk is missing is damage, and drops the value's entry (a value
    /// removed meanwhile would not be repaired). A piece made of one chunk larger than the
    /// piece size reads whole.
    @Test func aMissingChunkOfALiveValueIsRepaired() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(38, size: 2 << 20)
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "k")
                guard let opened = try openedByChunks("k", in: store) else { return }
                let pieces = opened.pieces(of: 0..<data.count, about: 100)
                #expect(pieces.count == opened.recipe.chunks.count, "one chunk a piece")
                let located = try #require(try opened.locate(0..<data.count))
                #expect(try pieces.map { try located.read($0) ?? Data() }.reduce(Data(), +) == data)
            }
            // Its last needle cut (a mapped pack is never cut: this process maps it after).
            let pack = path + "/packs/pack-1"
            truncate(pack, to: readBytes(pack).count - 1000)
            try withStore(path, chunked) { store throws in
                guard let opened = try openedByChunks("k", in: store) else { return }
                #expect(try opened.read(0..<10) == data.prefix(10))
                #expect(try opened.locate(data.count - 10..<data.count) == nil)
                #expect(try store.stats().damagedReads == 1)
                #expect(try store.entry(for: "k") == nil, "the entry was dropped")
            }
            // A value whose first chunk is missing does not open.
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "k")
                #expect(try store.value(for: "k") == data, "put again, the cut chunk written anew")
            }
            truncate(pack, to: 100)
            try withStore(path, chunked) { store throws in
                #expect(try store.entry(for: "k", readingUpTo: 1 << 20) == nil)
                #expect(try store.stats().damagedReads == 1 && store.stats().hits == 0)
            }
        }
    }

    /// A put that would store its value whole (packed or loose) and finds the same content
    /// stored as chunks refers to the chunks, and a chunking put that finds it whole refers to
    /// the whole copy (the crash torture found the first writing a chunked put record without
    /// its recipe).
    @Test func putsOfContentStoredTheOtherWayReuseIt() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var small = chunked
            small.chunkThreshold = 32 << 10
            small.chunkSize = 4 << 10
            let packable = value(16, size: 40 << 10)
            let loose = value(17, size: 100 << 10)
            let whole = value(18, size: 120 << 10)
            try withStore(path, small) { store throws in
                try store.put(packable, for: "packable")
                try store.put(loose, for: "loose")
            }
            try withStore(path, fast) { store throws in
                let blobs = try store.stats().distinctBlobs
                try store.put(packable, for: "packable again")
                try store.put(loose, for: "loose again")
                #expect(try store.stats().distinctBlobs == blobs, "the chunked copies are reused")
                try store.put(whole, for: "whole")
            }
            try withStore(path, small) { store throws in
                let blobs = try store.stats().distinctBlobs
                try store.put(whole, for: "whole again")
                #expect(try store.stats().distinctBlobs == blobs, "the whole copy is reused")
                #expect(try store.chunkStats().chunkedValues == 2)
                for (key, data) in [
                    ("packable", packable), ("packable again", packable), ("loose", loose), ("loose again", loose),
                    ("whole", whole), ("whole again", whole),
                ] {
                    #expect(try store.value(for: StoreKey(key)) == data, "\(key)")
                }
                try store.compact()
                #expect(try store.verify().isClean)
            }
        }
    }

    /// A value stored as chunks cut another way (another `chunkSize`) is reused as it is: the
    /// chunks a put cut the new way are left unreferenced, so putting it again and again with
    /// alternating chunk sizes does not grow what the store holds.
    @Test func contentChunkedAnotherWayIsReused() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var other = chunked
            other.chunkSize = 16 << 10
            let data = value(20, size: 600 << 10)
            try withStore(path, chunked) { store throws in try store.put(data, for: "a") }
            let chunks = try withStore(path, chunked) { store throws in try store.chunkStats().distinctChunks }
            for (round, configuration) in [other, chunked, other].enumerated() {
                try withStore(path, configuration) { store throws in
                    try store.put(data, for: StoreKey("again \(round)"))
                    #expect(try store.chunkStats().distinctChunks == chunks)
                    #expect(try store.chunkStats().chunkedValues == 1)
                    #expect(try store.value(for: StoreKey("again \(round)")) == data)
                }
            }
            try withStore(path, chunked) { store throws in
                _ = try store.collectGarbage(gracePeriod: .zero)
                #expect(try store.stats().storedBytes < 700 << 10, "the unreferenced chunks are repacked away")
                #expect(try store.value(for: "a") == data)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// A value whose content is one chunk of another value (cut with larger chunks) is that
    /// chunk's needle: a chunking put of it refers to the needle, and the other value keeps its
    /// chunk.
    @Test func aValueThatIsAChunkOfAnotherStaysThatChunk() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var large = chunked
            large.chunkSize = 256 << 10
            let outer = value(23, size: 4 << 20)
            let inner: Data = try withStore(path, large) { store throws in
                let digest = try store.put(outer, for: "outer")
                let recipe = try #require(store.state.withLock { $0.index.recipe(digest) })
                let index = try #require(recipe.chunks.indices.first { recipe.chunks[$0].length >= 128 << 10 })
                return Data(outer[recipe.offsets[index]..<recipe.offsets[index + 1]])
            }
            try withStore(path, chunked) { store throws in
                try store.put(inner, for: "inner")
                #expect(try store.chunkStats().chunkedValues == 1, "the inner value is the needle")
                #expect(try store.value(for: "inner") == inner)
                #expect(try store.value(for: "outer") == outer)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// A chunked put that expected another digest writes nothing (it is hashed first).
    @Test func aChunkedPutWithTheWrongExpectedDigestWritesNothing() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s"), chunked) { store throws in
                // Something live in the pack, which is then counted whole.
                try store.put(value(22, size: 100 << 10), for: "other")
                let stored = try store.stats().storedBytes
                let data = value(21, size: 300 << 10)
                let wrong = SHA256Hasher.hash(Data("another".utf8))
                #expect(throws: BlobStoreError.self) { try store.put(data, for: "k", expecting: wrong) }
                #expect(try store.stats().storedBytes == stored)
                #expect(try store.put(data, for: "k", expecting: SHA256Hasher.hash(data)) == SHA256Hasher.hash(data))
                #expect(try store.value(for: "k") == data)
            }
        }
    }

    /// A chunked value larger than a window (16 MiB) is handed out a window at a time: a handle
    /// on a copy checked before it is returned, a stream whose every piece was checked, a copy
    /// to a file. A damaged chunk in the second window ends the stream after the first window's
    /// pieces, with `corrupt`, and drops the entry.
    @Test func largeChunkedValuesAreReadAWindowAtATime() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let path = dir.child("s")
        let data = value(19, size: 20 << 20)
        let store = try BlobStore(at: path, configuration: chunked)
        defer { try? store.close() }
        try await store.put(data, for: "k")
        let handle = try #require(try await store.fileHandle(for: "k"))
        #expect(try handle.readToEnd() == data)
        let entry = try #require(try store.entry(for: "k", readingUpTo: 1 << 20))
        guard case .chunked(let info, let opened) = entry else {
            Issue.record("a chunked value larger than readingUpTo was not opened by its chunks")
            return
        }
        #expect(info.size == UInt64(data.count) && opened.count == data.count)
        var pieced = Data()
        for piece in opened.pieces(of: 0..<data.count) { pieced.append(try #require(try opened.read(piece))) }
        #expect(pieced == data)
        let copy = dir.child("copy")
        #expect(FileManager.default.createFile(atPath: copy, contents: nil))
        let destination = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
        #expect(try store.writeValue(for: "k", to: destination) != nil)
        try destination.close()
        #expect(readBytes(copy) == Array(data))
        var streamed = Data()
        for try await piece in try #require(try await store.chunks(for: "k", chunkSize: 1 << 20)) {
            #expect(piece.count == 1 << 20)
            streamed.append(piece)
        }
        #expect(streamed == data)

        // A bit flipped in the last needle of the newest pack: a chunk of the second window.
        let packs = try FileManager.default.contentsOfDirectory(atPath: path + "/packs").sorted {
            $0.count != $1.count ? $0.count < $1.count : $0 < $1
        }
        let last = path + "/packs/" + packs.last!
        flipBit(last, at: readBytes(last).count - 10, bit: 2)
        var received = 0
        await #expect(throws: BlobStoreError.self) {
            for try await piece in try #require(try await store.chunks(for: "k", chunkSize: 1 << 20)) {
                received += piece.count
            }
        }
        #expect(received >= 16 << 20 - (1 << 20), "the first window's pieces came before the damage")
        #expect(try await store.value(for: "k") == nil)
    }

    /// `update` of a chunked value's metadata keeps its value and counts its chunks as before
    /// (it once wrote a chunked put record without the recipe).
    @Test func updatingAChunkedValuesMetadataKeepsItsChunks() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(20, size: 300 << 10)
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "k", metadata: Data("one".utf8))
                let stored = try store.stats().storedBytes
                #expect(try store.update("k", metadata: Data("two".utf8), expires: nil))
                #expect(try store.stats().storedBytes == stored)
                #expect(try store.entry(for: "k")?.info.metadata == Data("two".utf8))
                #expect(try store.value(for: "k") == data)
            }
            try withStore(path, fast) { store throws in
                #expect(try store.value(for: "k") == data)
                try store.compact()
                #expect(try store.value(for: "k") == data)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// A put of a chunked value whose stored chunk is damaged writes that chunk anew and moves
    /// every reference to the new copy, so the value reads back under both keys (a chunked put
    /// once only counted a reference and left the damaged chunk where it was).
    @Test func puttingAChunkedValueAgainReplacesADamagedChunk() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let data = value(21, size: 300 << 10)
            try withStore(path, chunked) { store throws in try store.put(data, for: "a") }
            flipBit(path + "/packs/pack-1", at: 24 + 36 + 10, bit: 4)
            try withStore(path, chunked) { store throws in
                try store.put(data, for: "b")
                #expect(try store.value(for: "b") == data)
                #expect(try store.value(for: "a") == data)
            }
            try withStore(path, fast) { store throws in
                #expect(try store.value(for: "a") == data)
                try store.compact()
                #expect(try store.value(for: "b") == data)
            }
        }
    }

    /// `verify(repair:)` sets aside a damaged loose copy of a chunked value (`fileURL(for:)`)
    /// and keeps the value's keys while its chunks are sound.
    @Test func aDamagedCopyOfAChunkedValueIsSetAsideAndTheValueKept() throws {
        try withTemporaryDirectory { dir throws in
            let data = value(22, size: 300 << 10)
            try withStore(dir.child("s"), chunked) { store throws in
                try store.put(data, for: "k")
                let url = try #require(try store.fileURL(for: "k"))
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
                flipBit(url.path, at: 1000, bit: 0)
                let report = try store.verify(repair: true)
                #expect(report.corruptBlobs.count == 1)
                #expect(report.droppedEntries == 0)
                #expect(report.quarantinedBlobs == 1)
                #expect(try store.value(for: "k") == data)
                #expect(try store.verify().isClean)
            }
        }
    }
}
