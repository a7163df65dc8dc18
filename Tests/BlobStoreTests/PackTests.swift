import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStore

/// Packed small values (docs/design.md, "Packs"; docs/format.md, "Packs"): where they go, how
/// they are read, what damage to a pack does, and how dead needles are reclaimed.
@Suite struct PackTests {
    /// Small packs, so that a few hundred values fill several.
    private let smallPacks = {
        var configuration = fast
        configuration.packSize = 64 << 10
        configuration.compactionMinimumJournalBytes = .max
        return configuration
    }()

    private func value(_ index: Int, size: Int = 700) -> Data {
        var random = SplitMix64(seed: UInt64(index))
        return Data((0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    private func packFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "/packs")) ?? []).sorted()
    }

    /// The offset of the needle holding `data` in the pack at `packPath`.
    private func needleOffset(of data: Data, in packPath: String) throws -> Int {
        let header = PackFormat.needleHeader(size: UInt32(data.count), digest: SHA256Hasher.hash(data))
        let bytes = readBytes(packPath)
        let range = try #require(bytes.firstRange(of: header))
        return range.lowerBound
    }

    // MARK: - Where values go

    @Test func smallValuesArePackedLargeOnesAreLooseAndBothReadBack() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let sizes = [0, 1, 100, 4096, (64 << 10) - 1, 64 << 10, 300_000]
            try withStore(path) { store throws in
                for (index, size) in sizes.enumerated() {
                    try store.put(value(index, size: size), for: StoreKey("k\(size)"))
                }
                for (index, size) in sizes.enumerated() {
                    #expect(try store.value(for: StoreKey("k\(size)")) == value(index, size: size), "size \(size)")
                }
            }
            // Below the 64 KiB threshold: needles in one pack; from it on: files of their own.
            #expect(regularFiles(under: path + "/blobs").count == 2)
            #expect(packFiles(path) == ["pack-1"])
            let packed = sizes.filter { $0 < 64 << 10 }
            #expect(readBytes(path + "/packs/pack-1").count == 24 + packed.reduce(0) { $0 + 36 + $1 })
            try withStore(path) { store throws in
                for (index, size) in sizes.enumerated() {
                    #expect(
                        try store.value(for: StoreKey("k\(size)")) == value(index, size: size), "reopened, size \(size)"
                    )
                    #expect(try store.blob(SHA256Hasher.hash(value(index, size: size))) == value(index, size: size))
                }
            }
        }
    }

    @Test func identicalSmallContentIsOneNeedleAndStreamsOfSmallSizeArePacked() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let source = dir.child("source")
            writeBytes(source, Array(value(1)))
            try withStore(path) { store throws in
                try store.put(value(1), for: "a")
                try store.put(contentsOf: URL(fileURLWithPath: source), for: "b")
                try store.put(value(1), for: "c")
                #expect(try store.stats().distinctBlobs == 1)
                #expect(try store.value(for: "b") == value(1))
            }
            #expect(readBytes(path + "/packs/pack-1").count == 24 + 36 + 700)
            #expect(regularFiles(under: path + "/blobs").isEmpty)
            #expect(regularFiles(under: path + "/tmp").isEmpty)
        }
    }

    @Test func fileHandleAndFileURLOfAPackedValueHoldItsBytes() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                let digest = try store.put(value(2), for: "k")
                let handle = try #require(try store.fileHandle(for: "k"))
                #expect(try handle.readToEnd() == value(2))
                let byDigest = try #require(try store.fileHandle(forBlob: digest))
                #expect(try byDigest.readToEnd() == value(2))
                let url = try #require(try store.fileURL(for: "k"))
                #expect(try Data(contentsOf: url) == value(2))
                // The loose copy is not the blob's location: gc deletes it after the grace period.
                let report = try store.collectGarbage(gracePeriod: .zero)
                #expect(report.blobsDeleted == 1)
                #expect(try store.value(for: "k") == value(2))
                #expect(try store.verify().isClean)
            }
        }
    }

    // MARK: - Damage

    /// A flipped bit anywhere in a needle (its size, its digest or its bytes) makes that one
    /// value a miss, never wrong bytes, and its entry is dropped; the other values still read.
    /// A read finds its needle under the mutex and copies it after (``PackedRead``): the pack
    /// must stay mapped for it even when the store unmaps it and the file is deleted meanwhile.
    @Test func aNeedleFoundBeforeItsPackIsUnmappedAndDeletedStillReadsBack() throws {
        try withTemporaryDirectory { dir throws in
            let layout = StoreLayout(root: dir.child("s"))
            try FileManager.default.createDirectory(atPath: layout.packsDirectory, withIntermediateDirectories: true)
            var packs = PackFiles()
            var index = StoreIndex()
            let data = value(1)
            let digest = SHA256Hasher.hash(data)
            let appended = try data.withUnsafeBytes {
                try packs.append($0, digest: digest, index: index, layout: layout, fileMode: 0o644)
            }
            index.noteNeedle(at: appended.location, size: UInt64(data.count))
            let found = packs.locate(appended.location, size: UInt64(data.count), digest: digest, layout: layout)
            guard case .needle = found else {
                Issue.record("the needle was not found: \(found)")
                return
            }
            var unsynced: [FileDescriptor] = []
            packs.closeAll(keepingUnsynced: &unsynced)
            for fd in unsynced { Syscalls.close(fd) }
            try FileManager.default.removeItem(atPath: layout.pack(appended.location.pack))
            #expect(found.read() == .found(data))
            let again = packs.locate(appended.location, size: UInt64(data.count), digest: digest, layout: layout)
            #expect(again.read() == .missing)
        }
    }

    /// Readers on three threads copy needles with the mutex let go while a fourth removes nine
    /// values in ten, repacks (the pack holding the kept tenth and the last round's values is
    /// rewritten and deleted, and unmapped by this process) and puts them back: a kept value is
    /// never missed, and no read returns bytes other than the value's. The rewriting goes on for
    /// at least twenty rounds and until every reader has read all values twice while it ran.
    @Test func readersOnOtherThreadsKeepTheirValuesWhilePacksAreRewritten() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s"), smallPacks) { store throws in
                let count = 300
                let readers = 3
                for index in 0..<count { try store.put(value(index), for: StoreKey("k\(index)")) }
                let done = Atomic<Bool>(false)
                let problems = Mutex<[String]>([])
                let rewritten = Atomic<Int>(0)
                let rounds = Atomic<Int>(0)
                let passes = Mutex<[Int]>(Array(repeating: 0, count: readers))
                onThreads(1 + readers) { worker in
                    do {
                        if worker == 0 {
                            defer { done.store(true, ordering: .releasing) }
                            while rounds.load(ordering: .relaxed) < 20
                                || passes.withLock({ $0.min()! }) < 2 && rounds.load(ordering: .relaxed) < 2_000
                            {
                                for index in 0..<count where index % 10 != 0 { try store.remove(StoreKey("k\(index)")) }
                                let report = try store.collectGarbage(gracePeriod: .zero)
                                rewritten.add(report.packsRewritten, ordering: .relaxed)
                                for index in 0..<count where index % 10 != 0 {
                                    try store.put(value(index), for: StoreKey("k\(index)"))
                                }
                                rounds.add(1, ordering: .relaxed)
                            }
                            return
                        }
                        while !done.load(ordering: .acquiring) {
                            for index in 0..<count {
                                let read = try store.value(for: StoreKey("k\(index)"))
                                if read == nil && index % 10 != 0 { continue }
                                if read != value(index) {
                                    let found = read.map { "\($0.count) other bytes" } ?? "missed"
                                    problems.withLock { $0.append("k\(index): \(found)") }
                                }
                            }
                            if !done.load(ordering: .acquiring) { passes.withLock { $0[worker - 1] += 1 } }
                        }
                    } catch {
                        problems.withLock { $0.append("worker \(worker): \(error)") }
                    }
                }
                #expect(problems.withLock { $0 } == [])
                #expect(rewritten.load(ordering: .relaxed) >= rounds.load(ordering: .relaxed))
                #expect(passes.withLock { $0.min()! } >= 2, "a reader did not read while packs were rewritten")
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func everyBitFlippedInAPackIsAMissOrTheRightBytes() throws {
        try withTemporaryDirectory { dir throws in
            let original = dir.child("original")
            let values = (0..<3).map { value($0, size: 20 + $0) }
            try withStore(original) { store throws in
                for (index, value) in values.enumerated() { try store.put(value, for: StoreKey("k\(index)")) }
            }
            let packSize = readBytes(original + "/packs/pack-1").count
            var damaged = 0
            for offset in 0..<packSize {
                for bit in [0, 5] {
                    let path = dir.child("flip")
                    try? FileManager.default.removeItem(atPath: path)
                    try FileManager.default.copyItem(atPath: original, toPath: path)
                    flipBit(path + "/packs/pack-1", at: offset, bit: bit)
                    try withStore(path) { store throws in
                        var misses = 0
                        for (index, value) in values.enumerated() {
                            let read = try store.value(for: StoreKey("k\(index)"))
                            #expect(read == nil || read == value, "bit \(bit) of byte \(offset)")
                            if read == nil { misses += 1 }
                        }
                        // A flip in the pack header loses the whole pack; one in a needle, one value.
                        #expect(misses == (offset < 24 ? 3 : 1), "bit \(bit) of byte \(offset)")
                        damaged += misses
                        let report = try store.verify()
                        #expect(report.missingBlobs.isEmpty && report.corruptBlobs.isEmpty, "entries were dropped")
                    }
                }
            }
            #expect(damaged >= packSize * 2)
        }
    }

    /// A pack cut at any length (something else truncated it; the store never does): what is
    /// still whole reads back, what was cut off is a miss, and the next put appends after the
    /// end the index knows, never into a place an old record names.
    @Test func aPackCutAtEveryLengthLosesOnlyWhatWasCut() throws {
        try withTemporaryDirectory { dir throws in
            let original = dir.child("original")
            let values = (0..<3).map { value($0, size: 30) }
            try withStore(original) { store throws in
                for (index, value) in values.enumerated() { try store.put(value, for: StoreKey("k\(index)")) }
            }
            let bytes = readBytes(original + "/packs/pack-1")
            for length in 0..<bytes.count {
                let path = dir.child("cut")
                try? FileManager.default.removeItem(atPath: path)
                try FileManager.default.copyItem(atPath: original, toPath: path)
                truncate(path + "/packs/pack-1", to: length)
                try withStore(path) { store throws in
                    for (index, value) in values.enumerated() {
                        let end = 24 + (index + 1) * (36 + 30)
                        let read = try store.value(for: StoreKey("k\(index)"))
                        #expect(read == (length >= end && length >= 24 ? value : nil), "cut at \(length), k\(index)")
                    }
                    try store.put(value(9, size: 30), for: "after")
                    #expect(try store.value(for: "after") == value(9, size: 30), "cut at \(length)")
                }
            }
        }
    }

    @Test func readsThatDoNotRehashStillCheckTheNeedleHeader() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var trusting = fast
            trusting.verifyReads = false
            try withStore(path, trusting) { store throws in
                try store.put(value(1), for: "a")
                try store.put(value(2), for: "b")
            }
            // The needle of "b" claims other content: its digest's last byte changes.
            let offset = try needleOffset(of: value(2), in: path + "/packs/pack-1")
            flipBit(path + "/packs/pack-1", at: offset + 35, bit: 0)
            try withStore(path, trusting) { store throws in
                #expect(try store.value(for: "a") == value(1))
                #expect(try store.value(for: "b") == nil)
                #expect(try store.stats().damagedReads == 1)
            }
        }
    }

    /// A put of content whose needle is damaged appends a fresh needle, and every key moves to it.
    @Test func aPutOverADamagedNeedleHealsTheOlderKeys() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in try store.put(value(3), for: "old") }
            let offset = try needleOffset(of: value(3), in: path + "/packs/pack-1")
            flipBit(path + "/packs/pack-1", at: offset + 36 + 100, bit: 3)
            try withStore(path) { store throws in
                try store.put(value(3), for: "new")
                #expect(try store.value(for: "old") == value(3))
                #expect(try store.value(for: "new") == value(3))
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func aPutInTheProcessThatVerifiedANeedleStillChecksItsHeader() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                try store.put(value(5), for: "old")
                // The needle's header names another digest: the put that would reuse it (this
                // process wrote it, so its bytes are not rehashed) writes a needle of its own.
                let offset = try needleOffset(of: value(5), in: path + "/packs/pack-1")
                flipBit(path + "/packs/pack-1", at: offset + 4 + 7, bit: 1)
                try store.put(value(5), for: "new")
                #expect(try store.value(for: "new") == value(5))
                #expect(try store.value(for: "old") == value(5))
                #expect(try store.verify().isClean)
            }
        }
    }

    // MARK: - Reclaiming dead needles

    @Test func gcRewritesMostlyDeadPacksAndDeletesEmptyOnes() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, smallPacks) { store throws in
                for index in 0..<400 { try store.put(value(index), for: StoreKey("k\(index)")) }
                let packsBefore = packFiles(path).count
                #expect(packsBefore >= 4)
                // Three values in four go: every pack is about a quarter live.
                for index in 0..<400 where index % 4 != 0 { try store.remove(StoreKey("k\(index)")) }
                let storedBefore = try store.stats().storedBytes
                let report = try store.collectGarbage(gracePeriod: .zero)
                #expect(report.packsRewritten >= packsBefore - 1)
                #expect(report.needlesMoved >= 90)
                let stats = try store.stats()
                #expect(stats.storedBytes < storedBefore / 2)
                #expect(packFiles(path).count < packsBefore)
                for index in stride(from: 0, to: 400, by: 4) {
                    #expect(try store.value(for: StoreKey("k\(index)")) == value(index))
                }
                #expect(try store.verify().isClean)
            }
            // What the directory holds is what the index counts (headers and needles).
            let onDisk = packFiles(path).reduce(0) { $0 + readBytes(path + "/packs/" + $1).count }
            try withStore(path, smallPacks) { store throws in
                #expect(try store.stats().storedBytes == UInt64(onDisk))
                for index in stride(from: 0, to: 400, by: 4) {
                    #expect(try store.value(for: StoreKey("k\(index)")) == value(index))
                }
            }
        }
    }

    /// Once nothing in the newest pack lives it goes too (kept, it would take disk that nothing
    /// counts), and the next put starts a pack of a new number.
    @Test func theNewestPackGoesOnceNothingInItLivesAndTheNextPutStartsAnother() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, fast) { store throws in
                for index in 0..<3 { try store.put(value(index), for: StoreKey("a\(index)")) }
                #expect(packFiles(path) == ["pack-1"])
                for index in 0..<3 { try store.remove(StoreKey("a\(index)")) }
                try store.collectGarbage(gracePeriod: .zero)
                #expect(packFiles(path) == [])
                #expect(try store.stats().storedBytes == 0)
                try store.put(value(3), for: "b")
                #expect(packFiles(path).count == 1 && packFiles(path) != ["pack-1"], "\(packFiles(path))")
                #expect(try store.value(for: "b") == value(3))
                #expect(try store.verify().isClean)
            }
            try withStore(path, fast) { store throws in
                #expect(try store.entries().map(\.key.string) == ["b"])
                #expect(try store.value(for: "b") == value(3))
                try store.put(value(4), for: "c")
                #expect(packFiles(path).count == 1, "\(packFiles(path))")
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func aCapacityOfSmallValuesHoldsOnDisk() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = smallPacks
            let capacity: UInt64 = 256 << 10
            configuration.limits = EvictionLimits(capacity: capacity)
            try withStore(path, configuration) { store throws in
                for index in 0..<2000 {
                    try store.put(value(index, size: 100 + index % 900), for: StoreKey("k\(index)"))
                    if index % 100 == 99 {
                        #expect(try store.stats().storedBytes <= capacity, "after put \(index)")
                        #expect(
                            allocatedBytes(path + "/packs") <= capacity + UInt64(configuration.packSize),
                            "after put \(index)")
                    }
                }
                // The newest entries survive; every survivor reads back.
                #expect(try store.value(for: "k1999") == value(1999, size: 100 + 1999 % 900))
                for entry in try store.entries() {
                    let index = Int(entry.key.string.dropFirst())!
                    #expect(try store.value(for: entry.key) == value(index, size: 100 + index % 900))
                }
            }
        }
    }

    /// The disk blocks files under `directory` take (`st_blocks`), as `du` counts them.
    private func allocatedBytes(_ directory: String) -> UInt64 {
        var total: UInt64 = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            var info = stat()
            if lstat(directory + "/" + name, &info) == 0 { total += UInt64(info.st_blocks) * 512 }
        }
        return total
    }

    // MARK: - Format

    @Test func aStoreOfFormat1IsConvertedByItsFirstWrite() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            // Loose only: a format-1 journal holds no packed record.
            try withStore(path, looseOnly) { store throws in try store.put(Data("x"), for: "k") }
            var header = JournalHeader(generation: 1)
            header.version = 1
            var bytes = readBytes(path + "/journal-1")
            bytes.replaceSubrange(0..<24, with: header.encoded)
            writeBytes(path + "/journal-1", bytes)
            try withStore(path) { store throws in
                #expect(try store.value(for: "k") == Data("x"))
                #expect(try store.stats().generation == 1, "reading converts nothing")
                try store.put(Data("after"), for: "after")
                #expect(try store.stats().generation == 2, "converted by a compaction before the append")
            }
            let parsed = try readBytes(path + "/journal-2").withUnsafeBytes { try JournalHeader(parsing: $0) }
            #expect(parsed.version == JournalFormat.version)
            try withStore(path) { store throws in
                #expect(try store.value(for: "k") == Data("x"))
                #expect(try store.value(for: "after") == Data("after"))
            }
        }
    }
}
