import Foundation
import Testing

@testable import BlobStore

@Suite struct CompactionTests {
    /// Blob files under the store's `blobs/`.
    private func blobCount(_ path: String) -> Int { regularFiles(under: path + "/blobs").count }

    @Test func compactionKeepsEveryEntryWithItsTimesAndMetadata() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let expiry = Date(timeIntervalSinceNow: 3600)
            var before: [StoreKey: EntryInfo] = [:]
            try withStore(path) { store throws in
                for index in 0..<50 {
                    try store.put(
                        Data("value \(index % 7)"), for: StoreKey("k\(index)"), metadata: Data("m\(index)"),
                        expires: index % 2 == 0 ? expiry : nil)
                }
                for index in stride(from: 0, to: 50, by: 5) { _ = try store.value(for: StoreKey("k\(index)")) }
                try store.remove("k1")
                before = Dictionary(uniqueKeysWithValues: try store.entries().map { ($0.key, $0) })
                let report = try store.compact()
                #expect(report.generationBefore == 1 && report.generationAfter == 2)
                #expect(report.entries == 49)
                #expect(try store.stats().journalBytes == UInt64(JournalFormat.fileHeaderSize))
                #expect(try store.stats().manifestBytes == report.manifestBytes)
            }
            #expect(FileManager.default.fileExists(atPath: path + "/manifest-2"))
            #expect(!FileManager.default.fileExists(atPath: path + "/journal-1"))
            try withStore(path) { store throws in
                #expect(store.recoveryReport.manifestEntries == 49)
                #expect(store.recoveryReport.recordsReplayed == 0, "a manifest is loaded, not replayed")
                let after = Dictionary(uniqueKeysWithValues: try store.entries().map { ($0.key, $0) })
                #expect(after == before)
                #expect(try store.value(for: "k48") == Data("value \(48 % 7)"))
            }
        }
    }

    @Test func compactingAfterOverwritesLeavesOneBlobAndAnEmptyJournal() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = looseOnly
            configuration.compactionMinimumJournalBytes = .max
            try withStore(path, configuration) { store throws in
                for index in 0..<1000 { try store.put(Data("version \(index)"), for: "key") }
                #expect(blobCount(path) == 1000)
                let report = try store.compact()
                #expect(report.blobsDeleted == 999)
                #expect(report.entries == 1)
            }
            #expect(blobCount(path) == 1)
            #expect(readBytes(path + "/journal-2").count == JournalFormat.fileHeaderSize)
            try withStore(path) { store throws in
                #expect(try store.value(for: "key") == Data("version 999"))
            }
        }
    }

    @Test func writesAfterCompactionGoToTheNewJournal() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                try store.put(Data("a"), for: "a")
                try store.compact()
                try store.put(Data("b"), for: "b")
                try store.remove("a")
                try store.compact()
                try store.put(Data("c"), for: "c")
            }
            try withStore(path) { store throws in
                #expect(try store.stats().generation == 3)
                #expect(store.recoveryReport.manifestEntries == 1)
                #expect(store.recoveryReport.recordsReplayed == 1)
                #expect(try store.value(for: "a") == nil)
                #expect(try store.value(for: "b") == Data("b"))
                #expect(try store.value(for: "c") == Data("c"))
            }
        }
    }

    @Test func compactionRunsByItselfOnceTheJournalIsMostlyDead() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = looseOnly
            configuration.compactionMinimumJournalBytes = 16 << 10
            try withStore(path, configuration) { store throws in
                for index in 0..<2000 { try store.put(Data("v\(index % 10)"), for: StoreKey("key-\(index % 10)")) }
                let stats = try store.stats()
                #expect(stats.generation > 1)
                #expect(stats.journalBytes < 16 << 10)
                #expect(stats.entries == 10)
            }
            #expect(blobCount(path) == 10)
            try withStore(path) { store throws in
                for index in 0..<10 { #expect(try store.value(for: StoreKey("key-\(index)")) == Data("v\(index)")) }
            }
        }
    }

    @Test func aDamagedManifestKeepsWhatPrecedesTheDamageAndIsRewritten() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                for index in 0..<20 { try store.put(Data("value \(index)"), for: StoreKey("k\(index)")) }
                try store.compact()
            }
            let manifest = path + "/manifest-2"
            // Inside the one entries record (the pack table and the end record follow it).
            flipBit(manifest, at: JournalFormat.fileHeaderSize + JournalFormat.recordHeaderSize + 10, bit: 1)
            try withStore(path) { store throws in
                let report = store.recoveryReport
                #expect(report.manifestDamage != nil)
                #expect(!report.isClean)
                // Every entry in the manifest is in its one entries record: the whole record is lost.
                #expect(try store.stats().entries == 0)
                #expect(try store.stats().generation == 3, "the next writer (here, opening) rewrites it")
                try store.put(Data("new"), for: "new")
            }
            #expect(regularFiles(under: path + "/quarantine").contains { $0.hasPrefix("manifest-2-") })
            try withStore(path) { store throws in
                #expect(store.recoveryReport.isClean)
                #expect(try store.value(for: "new") == Data("new"))
                #expect(try store.value(for: "k3") == nil)
            }
        }
    }

    @Test func aManifestOfAnotherGenerationIsDamage() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var stale: [UInt8] = []
            try withStore(path) { store throws in
                try store.put(Data("old"), for: "old")
                try store.compact()
                stale = readBytes(path + "/manifest-2")
                try store.put(Data("new"), for: "new")
                try store.compact()
            }
            writeBytes(path + "/manifest-3", stale)
            try withStore(path) { store throws in
                #expect(store.recoveryReport.manifestDamage == "the manifest says generation 2, CURRENT says 3")
                #expect(try store.value(for: "new") == nil)
            }
        }
    }

    /// Every bit of a store's manifest flipped in turn, and the manifest cut at every byte:
    /// the store always opens, reports the damage, and never returns a wrong value.
    @Test func everyBitFlipAndTruncationOfAManifestThroughTheStore() throws {
        try withTemporaryDirectory { dir throws in
            let original = dir.child("original")
            try withStore(original) { store throws in
                for index in 0..<3 { try store.put(Data("value \(index)"), for: StoreKey("key-\(index)")) }
                try store.compact()
            }
            let manifest = readBytes(original + "/manifest-2")
            let work = dir.child("work")
            var damagedCases: [[UInt8]] = []
            for offset in 0..<manifest.count {
                damagedCases.append(Array(manifest.prefix(offset)))
                for bit in 0..<8 {
                    var damaged = manifest
                    damaged[offset] ^= UInt8(1 << bit)
                    damagedCases.append(damaged)
                }
            }
            for damaged in damagedCases {
                try? FileManager.default.removeItem(atPath: work)
                try FileManager.default.copyItem(atPath: original, toPath: work)
                writeBytes(work + "/manifest-2", damaged)
                try withStore(work) { store throws in
                    #expect(store.recoveryReport.manifestDamage != nil, "damage went unnoticed")
                    for entry in try store.entries() {
                        let index = Int(entry.key.string.dropFirst(4))!
                        #expect(try store.value(for: entry.key) == Data("value \(index)"))
                    }
                }
            }
            #expect(damagedCases.count == manifest.count * 9)
            print("manifest damage: \(manifest.count) bytes, \(damagedCases.count) cases through the store")
        }
    }

    /// An entries record claiming 2^32 entries, or an entry claiming a 4 GiB key, with valid
    /// checksums: damage, found before anything is allocated.
    @Test func manifestRecordClaimingHugeCountsIsRejectedBeforeAllocation() {
        for (payload, reason) in [
            (hugeVarint(1 << 32), "entry count 4294967296 exceeds 65536"),
            (hugeVarint(1) + hugeVarint(1 << 32) + [1, 2, 3], "key length 4294967296 exceeds 16777216"),
        ] {
            var framed = ByteWriter()
            JournalRecord.frame(type: ManifestFormat.entriesType, payload: payload, into: &framed)
            var read = 0
            let result = framed.bytes.withUnsafeBytes { ManifestReader.read($0) { _ in read += 1 } }
            #expect(result == ManifestReader.Result(entries: 0, damage: reason))
            #expect(read == 0)
        }
    }

    @Test func manifestRoundTripsAndRejectsEveryTruncationAndBitFlip() throws {
        var entries: [ManifestEntry] = []
        for index in 0..<40 {
            let expires: Int64? = index % 3 == 0 ? 1_800_000_000_000 : nil
            let entry = IndexEntry(
                digest: SHA256Hasher.hash(Data("\(index)")), size: UInt64(index * 1000), created: 1_700_000_000_000,
                lastAccess: 1_700_000_000_000 + Int64(index), expires: expires, metadata: Array("meta \(index)".utf8))
            entries.append(ManifestEntry(key: StoreKey("key-\(index)"), entry: entry))
        }
        let bytes = ManifestWriter.encode(generation: 9, entries: entries)
        let body = Array(bytes[JournalFormat.fileHeaderSize...])
        var decoded: [ManifestEntry] = []
        let result = body.withUnsafeBytes { ManifestReader.read($0) { decoded.append($0) } }
        #expect(result == ManifestReader.Result(entries: 40, damage: nil))
        #expect(decoded == entries)
        #expect(ManifestWriter.encode(generation: 9, entries: decoded) == bytes, "re-encoding is the identity")
        for length in 0..<body.count {
            let cut = Array(body.prefix(length))
            let result = cut.withUnsafeBytes { ManifestReader.read($0) { _ in } }
            #expect(result.damage != nil, "a manifest cut at \(length) must not read as whole")
        }
        for offset in 0..<body.count {
            for bit in 0..<8 {
                var damaged = body
                damaged[offset] ^= 1 << UInt8(bit)
                var read: [ManifestEntry] = []
                let result = damaged.withUnsafeBytes { ManifestReader.read($0) { read.append($0) } }
                #expect(result.damage != nil, "bit \(bit) of byte \(offset)")
                #expect(read.allSatisfy { entries.contains($0) }, "no entry is altered by a flipped bit")
            }
        }
    }
}
