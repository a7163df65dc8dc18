import BlobStoreTestKit
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

    /// Entries read from a mapped manifest: their access times move (and order eviction), an
    /// overwrite and a remove hide them, and the next compaction keeps all of it.
    @Test func changesOnTopOfAMappedManifestSurviveTheNextCompaction() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                for index in 0..<300 { try store.put(Data("value \(index)"), for: StoreKey("k\(index)")) }
                try store.compact()
            }
            var touched: EntryInfo?
            try withStore(path) { store throws in
                #expect(store.recoveryReport.recordsReplayed == 0)
                usleep(5_000)
                #expect(try store.value(for: "k7") == Data("value 7"))
                touched = try store.info(for: "k7")
                #expect(touched!.lastAccess > touched!.created, "a read moves a mapped entry's access time")
                try store.put(Data("new 8"), for: "k8")
                #expect(try store.remove("k9"))
                #expect(try store.stats().entries == 299)
                #expect(try store.entries().count == 299)
                try store.compact()
                #expect(try store.value(for: "k8") == Data("new 8"))
            }
            try withStore(path) { store throws in
                #expect(try store.info(for: "k7")?.lastAccess == touched?.lastAccess)
                #expect(try store.value(for: "k8") == Data("new 8"))
                #expect(try store.value(for: "k9") == nil)
                #expect(try store.stats().entries == 299)
                #expect(try store.verify().isClean)
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

    /// A bit flipped in a key block loses that block's entries, and only them: the others read
    /// back, the damage is reported once a read finds it, and the next writer rewrites the
    /// manifest, setting the damaged one aside.
    @Test func aDamagedBlockLosesOnlyItsEntriesAndIsRewritten() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                for index in 0..<200 { try store.put(Data("value \(index)"), for: StoreKey("k\(index)")) }
                try store.compact()
            }
            let manifest = path + "/manifest-2"
            // Inside the first key block's payload.
            flipBit(manifest, at: JournalFormat.fileHeaderSize + JournalFormat.recordHeaderSize + 10, bit: 1)
            try withStore(path) { store throws in
                #expect(store.recoveryReport.isClean, "opening checks the index, not the blocks")
                var found = 0
                for index in 0..<200 {
                    guard let value = try store.value(for: StoreKey("k\(index)")) else { continue }
                    #expect(value == Data("value \(index)"))
                    found += 1
                }
                #expect(found > 150 && found < 200, "one block of about a dozen entries is lost: \(found) read")
                #expect(store.recoveryReport.manifestDamage?.contains("key block 0") == true)
                #expect(try store.stats().generation == 2)
                try store.put(Data("new"), for: "new")
                #expect(try store.stats().generation == 3, "the next writer rewrites the manifest")
                #expect(try store.stats().entries == found + 1)
            }
            #expect(regularFiles(under: path + "/quarantine").contains { $0.hasPrefix("manifest-2-") })
            try withStore(path) { store throws in
                #expect(store.recoveryReport.isClean)
                #expect(try store.value(for: "new") == Data("new"))
                #expect(try store.verify().isClean)
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

    /// Every bit of a store's manifest flipped in turn, and the manifest cut at every byte: the
    /// store always opens, never returns a wrong value, and `verify` (which reads every block)
    /// always reports the damage.
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
                    for index in 0..<3 {
                        let value = try store.value(for: StoreKey("key-\(index)"))
                        #expect(value == nil || value == Data("value \(index)"))
                    }
                    for entry in try store.entries() {
                        let index = Int(entry.key.string.dropFirst(4))!
                        let value = try store.value(for: entry.key)
                        #expect(value == nil || value == Data("value \(index)"))
                    }
                    let report = try store.verify()
                    #expect(report.recovery.manifestDamage != nil, "damage went unnoticed")
                    #expect(!report.isClean)
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

    private func table(_ bytes: [UInt8]) throws(ByteReader.Failure) -> ManifestTable {
        try ManifestTable(FileMapping(copying: bytes))
    }

    private func manifestEntries(_ count: Int) -> [ManifestEntry] {
        // Blobs 25 to 49 are needles, one after another in packs 1 and 2.
        var locations: [BlobLocation] = Array(repeating: .loose, count: 50)
        var ends: [UInt64] = [24, 24]
        for blob in 25..<50 {
            let pack = blob % 2
            locations[blob] = .packed(PackLocation(pack: UInt32(pack + 1), offset: ends[pack]))
            ends[pack] += PackFormat.needleSize(UInt64(blob * 1000))
        }
        return (0..<count).map { index in
            let expires: Int64? = index % 3 == 0 ? 1_800_000_000_000 : nil
            let entry = IndexEntry(
                digest: SHA256Hasher.hash(Data("\(index % 50)")), size: UInt64(index % 50 * 1000),
                created: 1_700_000_000_000, lastAccess: 1_700_000_000_000 + Int64(index), expires: expires,
                metadata: Array("meta \(index)".utf8))
            return ManifestEntry(key: StoreKey("key-\(index)"), entry: entry, location: locations[index % 50])
        }
    }

    /// A manifest of 3,000 entries over 50 blobs: every key and every blob is found, nothing else
    /// is, the totals are the entries', and a scan reads them all back in the table's order.
    @Test func manifestTableFindsEveryEntryAndBlob() throws {
        let entries = manifestEntries(3000)
        let bytes = ManifestWriter.encode(
            generation: 9, entries: entries,
            packs: ManifestPackTable(nextPack: 3, packs: [.init(number: 1, end: 4096), .init(number: 2, end: 8192)]))
        let table = try table(bytes)
        #expect(table.totals.entries == 3000)
        #expect(table.totals.blobs == 50)
        #expect(table.totals.logicalBytes == entries.reduce(0) { $0 + $1.entry.size })
        #expect(table.nextPack == 3)
        #expect(table.packs.map(\.number) == [1, 2])
        for entry in entries { #expect(table.entry(for: entry.key) == entry) }
        #expect(table.entry(for: "key-3000") == nil)
        #expect(table.entry(for: "") == nil)
        for entry in entries.prefix(50) {
            let blob = table.blob(entry.entry.digest)
            #expect(blob?.references == 60)
            #expect(blob?.size == entry.entry.size)
            #expect(blob?.location == entry.location)
        }
        #expect(table.blob(SHA256Hasher.hash(Data("absent"))) == nil)
        var scanned: [ManifestEntry] = []
        table.forEachEntry { scanned.append($0) }
        #expect(Set(scanned.map(\.key)) == Set(entries.map(\.key)))
        #expect(scanned.count == 3000)
        #expect(table.check() == nil)
        #expect(
            ManifestWriter.encode(
                generation: 9, entries: scanned.reversed(),
                packs: ManifestPackTable(
                    nextPack: 3, packs: [.init(number: 1, end: 4096), .init(number: 2, end: 8192)])) == bytes,
            "the same entries make the same bytes, in any order")
    }

    /// An empty store's manifest: the header, the index and the trailer.
    @Test func anEmptyManifestHoldsNothing() throws {
        let bytes = ManifestWriter.encode(generation: 2, entries: [])
        #expect(
            bytes.count == JournalFormat.fileHeaderSize + JournalFormat.recordHeaderSize + ManifestFormat.indexFixedSize
                + ManifestFormat.trailerSize)
        let table = try table(bytes)
        #expect(
            table.totals
                == ManifestTable.Totals(entries: 0, blobs: 0, logicalBytes: 0, looseBytes: 0, liveRecordBytes: 0))
        #expect(table.entry(for: "a") == nil)
        #expect(table.check() == nil)
    }

    /// Every cut and every flipped bit of a manifest is refused at opening or found by a full
    /// check, and no lookup or scan ever yields an entry that was not written.
    @Test func manifestTableRejectsEveryTruncationAndBitFlip() throws {
        let entries = manifestEntries(40).map { entry -> ManifestEntry in
            var entry = entry
            entry.location = .loose
            return entry
        }
        let bytes = ManifestWriter.encode(generation: 9, entries: entries)
        for length in 0..<bytes.count {
            guard let cut = try? table(Array(bytes.prefix(length))) else { continue }
            #expect(cut.check() != nil, "a manifest cut at \(length) must not read as whole")
        }
        var refusedAtOpening = 0
        for offset in 0..<bytes.count {
            for bit in 0..<8 {
                var damaged = bytes
                damaged[offset] ^= 1 << UInt8(bit)
                if offset < JournalFormat.fileHeaderSize {
                    // The header is the caller's to check.
                    #expect(
                        (try? JournalHeader(parsing: damaged.withUnsafeBytes { $0 }, magic: ManifestFormat.magic))
                            == nil)
                    continue
                }
                guard let table = try? table(damaged) else {
                    refusedAtOpening += 1
                    continue
                }
                for entry in entries {
                    if let found = table.entry(for: entry.key) {
                        #expect(found == entry, "bit \(bit) of byte \(offset)")
                    }
                }
                var read: [ManifestEntry] = []
                table.forEachEntry { read.append($0) }
                #expect(read.allSatisfy { entries.contains($0) }, "no entry is altered by a flipped bit")
                #expect(table.check() != nil, "bit \(bit) of byte \(offset)")
            }
        }
        #expect(refusedAtOpening > 0)
    }
}
