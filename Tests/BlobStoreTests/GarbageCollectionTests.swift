import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore

@Suite struct GarbageCollectionTests {
    /// Writes a blob file under its digest's name without journaling it, as a writer that linked
    /// it and has not yet appended its record would leave it.
    private func plantUnjournaledBlob(_ store: String, _ bytes: Data) -> String {
        let digest = SHA256Hasher.hash(bytes)
        let file = blobFile(store, digest)
        try? FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        writeBytes(file, Array(bytes))
        return file
    }

    @Test func theSweepKeepsUnreferencedBlobsYoungerThanTheGracePeriod() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("kept"), for: "kept")
                let planted = plantUnjournaledBlob(path, Data("linked, not yet journaled"))
                let young = try store.collectGarbage(gracePeriod: .seconds(3600))
                #expect(young.blobsKeptYoung == 1 && young.blobsDeleted == 0)
                #expect(FileManager.default.fileExists(atPath: planted))
                usleep(150_000)
                let old = try store.collectGarbage(gracePeriod: .milliseconds(100))
                #expect(old.blobsDeleted == 1)
                #expect(old.blobBytesDeleted == UInt64("linked, not yet journaled".utf8.count))
                #expect(!FileManager.default.fileExists(atPath: planted))
                #expect(try store.value(for: "kept") == Data("kept"))
            }
        }
    }

    @Test func blobsLeftByOverwritesAndRemovesAreDeleted() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("one"), for: "a")
                try store.put(Data("two"), for: "a")
                try store.put(Data("three"), for: "b")
                try store.remove("b")
                #expect(regularFiles(under: path + "/blobs").count == 3)
                let report = try store.collectGarbage()
                #expect(report.blobsDeleted == 2, "known to be unreferenced from the journal: no grace needed")
                #expect(report.entriesAfter == 1)
                #expect(
                    regularFiles(under: path + "/blobs") == [
                        "sha256/" + String(SHA256Hasher.hash(Data("two")).hex.prefix(2)) + "/"
                            + SHA256Hasher.hash(Data("two")).hex
                    ])
            }
        }
    }

    @Test func staleTemporaryFilesAndOldGenerationsAreDeleted() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("a"), for: "a")
                // Past the largest pid Linux hands out (2^22): this writer is surely gone.
                writeBytes(path + "/tmp/4194305-dead", Array("half a value".utf8))
                writeBytes(path + "/tmp/\(getpid())-waiting", Array("a put waiting for the lock".utf8))
                writeBytes(path + "/journal-7", [1, 2, 3])
                writeBytes(path + "/manifest-7", [1, 2, 3])
                let young = try store.collectGarbage(gracePeriod: .seconds(3600))
                #expect(young.temporaryFilesDeleted == 0)
                #expect(young.oldGenerationFilesDeleted == 2, "files of another generation need no grace")
                #expect(FileManager.default.fileExists(atPath: path + "/tmp/4194305-dead"))
                #expect(FileManager.default.fileExists(atPath: path + "/journal-1"))
                let old = try store.collectGarbage(gracePeriod: .zero)
                #expect(old.temporaryFilesDeleted == 1 && old.temporaryBytesDeleted == 12)
                #expect(!FileManager.default.fileExists(atPath: path + "/tmp/4194305-dead"))
                #expect(
                    FileManager.default.fileExists(atPath: path + "/tmp/\(getpid())-waiting"),
                    "a live writer's file is kept, however old")
                #expect(try store.value(for: "a") == Data("a"))
            }
        }
    }

    @Test func aDryRunCountsAndChangesNothing() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                for index in 0..<10 {
                    try store.put(Data(repeating: UInt8(index), count: 1000), for: StoreKey("k\(index)"))
                }
                try store.put(Data("expired"), for: "expired", expires: Date(timeIntervalSinceNow: -1))
                let planted = plantUnjournaledBlob(path, Data("stray"))
                let before = try store.entries()
                let statsBefore = try store.stats()
                let journalBefore = readBytes(path + "/journal-1")
                let report = try store.collectGarbage(
                    limits: EvictionLimits(capacity: 5 * 4096, lowWater: 1), gracePeriod: .zero, dryRun: true)
                #expect(report.dryRun)
                #expect(report.expiredEntries == 1)
                #expect(report.chosenByPolicyEntries == 5)
                #expect(report.blobsDeleted == 1)
                #expect(try store.entries() == before)
                #expect(try store.stats() == statsBefore, "the expired entry is still counted")
                #expect(readBytes(path + "/journal-1") == journalBefore)
                #expect(FileManager.default.fileExists(atPath: planted))
                // Not even a torn tail left by a crash is repaired by a dry run.
                let journal = path + "/journal-1"
                writeBytes(journal, readBytes(journal) + [9, 0, 0])
                _ = try store.collectGarbage(dryRun: true)
                #expect(readBytes(journal).suffix(3) == [9, 0, 0])
                let real = try store.collectGarbage(
                    limits: EvictionLimits(capacity: 5 * 4096, lowWater: 1), gracePeriod: .zero)
                #expect(real.evictedEntries == report.evictedEntries)
                #expect(try store.stats().storedBytes <= 5 * 4096, "each 1000-byte blob takes a 4 KiB block")
                #expect(!FileManager.default.fileExists(atPath: planted))
            }
        }
    }
}
