import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore

/// Recovery through the store: what opening a damaged journal keeps, reports and repairs.
@Suite struct RecoveryTests {
    /// Writes `count` puts and returns the journal's record boundaries (file offsets).
    private func makeStore(_ path: String, count: Int) throws -> [Int] {
        try withStore(path, looseOnly) { store throws in
            for index in 0..<count { try store.put(Data("value \(index % 10)"), for: StoreKey("key-\(index)")) }
        }
        let bytes = readBytes(path + "/journal-1")
        var boundaries = [JournalFormat.fileHeaderSize]
        _ = Array(bytes[JournalFormat.fileHeaderSize...]).withUnsafeBytes {
            JournalReader.scan($0) { _, range in boundaries.append(JournalFormat.fileHeaderSize + range.upperBound) }
        }
        #expect(boundaries.count == count + 1)
        return boundaries
    }

    /// Truncates a 60-record journal at every byte offset: the store opens holding exactly the
    /// records wholly before the cut, and accepts appends afterwards.
    @Test func truncatedJournalAtEveryOffsetKeepsWholeRecordsAndAcceptsAppends() throws {
        try withTemporaryDirectory { dir throws in
            let original = dir.child("original")
            let boundaries = try makeStore(original, count: 60)
            let journal = readBytes(original + "/journal-1")
            let work = dir.child("work")
            try FileManager.default.copyItem(atPath: original, toPath: work)
            for cut in JournalFormat.fileHeaderSize...journal.count {
                writeBytes(work + "/journal-1", Array(journal.prefix(cut)))
                let whole = boundaries.lastIndex { $0 <= cut }!
                try withStore(work) { store throws in
                    #expect(try store.stats().entries == whole, "cut at \(cut)")
                    #expect(store.recoveryReport.tornTailBytes == cut - boundaries[whole])
                    #expect(store.recoveryReport.isClean)
                    if whole > 0 {
                        #expect(try store.value(for: StoreKey("key-\(whole - 1)")) == Data("value \((whole - 1) % 10)"))
                    }
                    try store.put(Data("after"), for: "appended")
                }
                try withStore(work) { store throws in
                    #expect(try store.stats().entries == whole + 1)
                    #expect(try store.value(for: "appended") == Data("after"))
                    #expect(store.recoveryReport.tornTailBytes == 0)
                }
            }
        }
    }

    @Test func checksumMismatchIsReportedQuarantinedAndCompacted() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let boundaries = try makeStore(path, count: 10)
            flipBit(path + "/journal-1", at: boundaries[4] + JournalFormat.recordHeaderSize + 3, bit: 3)
            try withStore(path, looseOnly) { store throws in
                let report = store.recoveryReport
                #expect(report.recordsReplayed == 4)
                #expect(report.corruptionOffset == boundaries[4])
                #expect(report.droppedBytes == boundaries[10] - boundaries[4])
                #expect(report.corruptionReason == "checksum mismatch")
                let saved = try #require(report.quarantinedJournal)
                #expect(readBytes(saved).count == report.droppedBytes)
                #expect(try store.stats().entries == 4)
                try store.put(Data("new"), for: "new")
            }
            try withStore(path, looseOnly) { store throws in
                #expect(store.recoveryReport.isClean)
                #expect(try store.stats().entries == 5)
                #expect(try store.stats().generation == 2, "damage is repaired by compacting into generation 2")
                #expect(try store.value(for: "new") == Data("new"))
            }
            #expect(!FileManager.default.fileExists(atPath: path + "/journal-1"))
            #expect(
                String(decoding: readBytes(path + "/CURRENT"), as: UTF8.self)
                    == "blobstore-format 1\ngeneration 2\nmanifest manifest-2\n")
        }
    }

    /// A put whose key length claims 4 GiB (2^32), with valid checksums, after five good
    /// records and before a good one: opening reports it as damage at its offset, keeps the
    /// five, sets the rest aside, and allocates nothing near its claim. The open runs in a child
    /// process (`blobstore-test-helper open`), whose own peak resident memory `ChildProcess` reads:
    /// this process's counts every test running in parallel with this one.
    @Test func recordClaimingAFourGiBKeyIsDamageOnOpenAndAllocatesNothing() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let boundaries = try makeStore(path, count: 5)
            var crafted = ByteWriter()
            JournalRecord.frame(
                type: JournalFormat.RecordType.put.rawValue,
                payload: hugeVarint(1 << 32) + [UInt8](repeating: 0x41, count: 64), into: &crafted)
            let after = JournalRecord.remove(key: "key-0", digest: nil).framed
            writeBytes(path + "/journal-1", readBytes(path + "/journal-1") + crafted.bytes + after)
            let run = try ChildProcess.run(BuiltProducts.executable("blobstore-test-helper"), ["open", path], in: dir)
            try #require(run.status == 0, "\(run.stderr)")
            #expect(
                run.stdout == """
                    corruptionOffset: \(boundaries[5])
                    corruptionReason: key length 4294967296 exceeds 16777216
                    droppedBytes: \(crafted.bytes.count + after.count)
                    entries: 5

                    """)
            #expect(run.peakResidentBytes > 0, "the child's peak memory was read")
            #expect(run.peakResidentBytes < 1 << 30, "peak RSS \(run.peakResidentBytes >> 20) MiB")
            try withStore(path, looseOnly) { store throws in
                #expect(try store.stats().entries == 5)
                #expect(try store.value(for: "key-0") == Data("value 0"), "the record after the damage is dropped")
            }
        }
    }

    @Test func zeroFilledTailIsTruncated() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            _ = try makeStore(path, count: 5)
            writeBytes(path + "/journal-1", readBytes(path + "/journal-1") + [UInt8](repeating: 0, count: 8192))
            try withStore(path, looseOnly) { store throws in
                #expect(store.recoveryReport.tornTailBytes == 8192)
                #expect(store.recoveryReport.isClean)
                #expect(try store.stats().entries == 5)
            }
        }
    }

    @Test func garbageFilledTailIsDroppedAndReported() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            _ = try makeStore(path, count: 5)
            let garbage = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }
            writeBytes(path + "/journal-1", readBytes(path + "/journal-1") + garbage)
            try withStore(path, looseOnly) { store throws in
                #expect(try store.stats().entries == 5)
                #expect(store.recoveryReport.droppedBytes + store.recoveryReport.tornTailBytes == 8192)
                try store.put(Data("x"), for: "after garbage")
            }
            try withStore(path, looseOnly) { store throws in
                #expect(try store.value(for: "after garbage") == Data("x"))
            }
        }
    }

    /// Every bit of a small journal flipped in turn, through the store: it always opens, never
    /// returns a value that was not put under that key.
    @Test func bitFlipsInTheJournalNeverYieldWrongValues() throws {
        try withTemporaryDirectory { dir throws in
            let original = dir.child("original")
            _ = try makeStore(original, count: 12)
            let journal = readBytes(original + "/journal-1")
            let work = dir.child("work")
            try FileManager.default.copyItem(atPath: original, toPath: work)
            for offset in JournalFormat.fileHeaderSize..<journal.count {
                for bit in 0..<8 {
                    var damaged = journal
                    damaged[offset] ^= UInt8(1 << bit)
                    for name in try FileManager.default.contentsOfDirectory(atPath: work)
                    where name.hasPrefix("journal-") {
                        try FileManager.default.removeItem(atPath: work + "/" + name)
                    }
                    writeBytes(work + "/CURRENT", Array("blobstore-format 1\ngeneration 1\n".utf8))
                    writeBytes(work + "/journal-1", damaged)
                    try withStore(work) { store throws in
                        let report = store.recoveryReport
                        #expect(try store.stats().generation == (report.droppedBytes > 0 ? 2 : 1))
                        #expect(report.droppedBytes + report.tornTailBytes > 0, "flip at \(offset) went unnoticed")
                        for entry in try store.entries() {
                            let index = Int(entry.key.string.dropFirst(4))!
                            #expect(try store.value(for: entry.key) == Data("value \(index % 10)"))
                        }
                    }
                }
            }
        }
    }

    @Test func missingBlobIsAMissAndTheEntryIsRemoved() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                let digest = try store.put(Data("will vanish"), for: "a")
                try store.put(Data("will vanish"), for: "b")
                #expect(try Syscalls.unlink(blobFile(path, digest)))
                #expect(try store.value(for: "a") == nil)
                #expect(try !store.contains("b"))
                #expect(try store.stats().repairs == 2)
            }
            try withStore(path, looseOnly) { store throws in #expect(try store.stats().entries == 0) }
        }
    }

    @Test func damagedBlobIsAMissAndIsQuarantined() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let digest = try withStore(path, looseOnly) { store throws in
                try store.put(Data("precious bytes"), for: "k")
            }
            let hex = digest.hex
            let blob = blobFile(path, digest)
            chmod(blob, 0o600)
            flipBit(blob, at: 3, bit: 0)
            try withStore(path, looseOnly) { store throws in
                #expect(try store.value(for: "k") == nil)
                #expect(try store.value(for: "k") == nil)
                #expect(try store.stats().misses == 2)
                try store.put(Data("precious bytes"), for: "k")
                #expect(try store.value(for: "k") == Data("precious bytes"))
            }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine").contains { $0.hasPrefix(hex) }
            )
        }
    }

    @Test func truncatedBlobLeftByAPowerLossIsReplacedOnTheNextPut() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let digest = try withStore(path, looseOnly) { store throws in
                let digest = try store.put(Data("full content"), for: "k")
                try store.remove("k")
                return digest
            }
            let blob = blobFile(path, digest)
            chmod(blob, 0o600)
            truncate(blob, to: 4)
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("full content"), for: "again")
                #expect(try store.value(for: "again") == Data("full content"))
            }
        }
    }
}
