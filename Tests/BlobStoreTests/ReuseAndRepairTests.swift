import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// Puts that reuse an existing blob, and repairs racing them: an acknowledged put is never lost
/// to a blob that was damaged or missing before it.
@Suite struct ReuseAndRepairTests {
    /// Overwrites a read-only blob file with other bytes of the same size.
    /// `always` mode, nothing packed.
    private let looseAlways = {
        var configuration = BlobStore.Configuration(durability: .always)
        configuration.packThreshold = 0
        return configuration
    }()

    private func damage(_ path: String) {
        chmod(path, 0o600)
        var bytes = readBytes(path)
        for index in bytes.indices { bytes[index] ^= 0x5a }
        writeBytes(path, bytes)
    }

    /// Content whose entries were all removed, put again before garbage collection: the put
    /// tries to link, finds the name taken, checks the file and keeps it (same inode), leaving
    /// nothing in tmp/ or quarantine/. The same with the file damaged: it is quarantined and
    /// the fresh bytes take its place.
    @Test(arguments: [false, true])
    func putOfContentThatIsStillOnDiskAsGarbage(damaged: Bool) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = Data("content that outlives its key")
            let digest = try withStore(path, looseOnly) { store throws in
                let digest = try store.put(value, for: "a")
                #expect(try store.remove("a"))
                return digest
            }
            let file = blobFile(path, digest)
            if damaged { damage(file) }
            var before = stat()
            #expect(lstat(file, &before) == 0)
            try withStore(path, looseOnly) { store throws in
                #expect(try store.stats().distinctBlobs == 0)
                try store.put(value, for: "b")
                #expect(try store.value(for: "b") == value)
            }
            var after = stat()
            #expect(lstat(file, &after) == 0)
            #expect((after.st_ino == before.st_ino) == !damaged)
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/tmp").isEmpty)
            let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: path + "/quarantine")) ?? []
            #expect(quarantined.count == (damaged ? 1 : 0))
        }
    }

    @Test func putOfKnownContentOverADamagedBlobStoresFreshBytesAndHealsOlderKeys() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = Data("precious content")
            let digest = try withStore(path, looseAlways) { store throws in
                try store.put(value, for: "a")
            }
            damage(blobFile(path, digest))
            try withStore(path, looseAlways) { store throws in
                try store.put(value, for: "b")
                #expect(try store.value(for: "b") == value)
                #expect(try store.value(for: "a") == value, "the fresh copy serves the older key too")
                #expect(try store.stats().damagedReads == 0)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine").count == 1)
        }
    }

    @Test func zeroFilledUnreferencedBlobOfTheRightSizeIsReplacedOnTheNextPut() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = Data("content that a power loss zeroed")
            let digest = try withStore(path, looseOnly) { store throws in
                let digest = try store.put(value, for: "k")
                try store.remove("k")
                return digest
            }
            let file = blobFile(path, digest)
            chmod(file, 0o600)
            writeBytes(file, [UInt8](repeating: 0, count: value.count))
            try withStore(path, looseOnly) { store throws in
                try store.put(value, for: "again")
                #expect(try store.value(for: "again") == value)
            }
        }
    }

    /// One thread reads a key whose blob was deleted (and so repairs) while another puts the
    /// same content under a new key: the new key must survive every time.
    @Test func repairRacingAPutOfTheSameContentNeverDropsThePut() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                for round in 0..<200 {
                    let value = Data("round \(round)")
                    let digest = try store.put(value, for: StoreKey("old-\(round)"))
                    #expect(try Syscalls.unlink(blobFile(path, digest)))
                    DispatchQueue.concurrentPerform(iterations: 2) { worker in
                        if worker == 0 {
                            _ = try? store.value(for: StoreKey("old-\(round)"))
                        } else {
                            _ = try? store.put(value, for: StoreKey("new-\(round)"))
                        }
                    }
                    #expect(try store.value(for: StoreKey("new-\(round)")) == value, "round \(round)")
                }
            }
        }
    }

    /// A process that moved to a new generation died after swapping CURRENT but before unlinking
    /// the old journal. A store still open on the old generation must notice CURRENT changed.
    @Test func newGenerationIsNoticedEvenWhenTheOldJournalWasLeftBehind() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let store = try BlobStore(at: path, configuration: fast)
            defer { try? store.close() }
            try store.put(Data("one"), for: "k1")
            let old = readBytes(path + "/journal-1")
            writeBytes(path + "/journal-2", JournalHeader(generation: 2).encoded + old[JournalFormat.fileHeaderSize...])
            writeBytes(path + "/CURRENT.new", Array("blobstore-format 1\ngeneration 2\n".utf8))
            try FileManager.default.removeItem(atPath: path + "/CURRENT")
            try FileManager.default.moveItem(atPath: path + "/CURRENT.new", toPath: path + "/CURRENT")
            // That process took the exclusive lock first, which bumps LOCK's change counter (the
            // first eight bytes, little-endian); it died before it could bump it again.
            var lock = readBytes(path + "/LOCK")
            let counter = lock.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) } + 1
            for index in 0..<8 { lock[index] = UInt8(truncatingIfNeeded: counter >> (8 * UInt64(index))) }
            let fd = open(path + "/LOCK", O_WRONLY)
            #expect(pwrite(fd, lock, 8, 0) == 8)
            close(fd)
            try store.put(Data("two"), for: "k2")
            #expect(try store.stats().generation == 2)
            try store.close()
            try withStore(path, looseOnly) { reopened throws in
                #expect(try reopened.stats().generation == 2)
                #expect(try reopened.value(for: "k1") == Data("one"))
                #expect(try reopened.value(for: "k2") == Data("two"))
            }
        }
    }

    /// Reads never wait for, or fail because of, another process's lock: access times are hints.
    @Test func readsNeverWaitForTheLockToRecordAccesses() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let configuration = BlobStore.Configuration(durability: .batched, lockTimeout: .milliseconds(1))
            let store = try BlobStore(at: path, configuration: configuration)
            try store.put(Data("v"), for: "k")
            // flock(2) locks belong to open file descriptions: this one conflicts with the store's.
            let other = open(path + "/LOCK", O_RDWR)
            defer { close(other) }
            #expect(flock(other, LOCK_EX | LOCK_NB) == 0)
            for _ in 0..<(3 * configuration.accessBatchSize) {
                #expect(try store.value(for: "k") == Data("v"))
            }
            try store.close()
        }
    }

    @Test func extremeDatesAndDurationsDoNotTrap() throws {
        try withTemporaryDirectory { dir throws in
            let configuration = BlobStore.Configuration(
                durability: .batched, batchInterval: .seconds(Int64.max / 2), lockTimeout: .seconds(-1))
            try withStore(dir.child("s"), configuration) { store throws in
                try store.put(Data("far"), for: "far", expires: Date(timeIntervalSince1970: 1e300))
                try store.put(Data("never"), for: "inf", expires: Date(timeIntervalSince1970: .infinity))
                try store.put(Data("past"), for: "past", expires: Date(timeIntervalSince1970: -1e300))
                #expect(try store.value(for: "far") == Data("far"))
                #expect(try store.value(for: "inf") == Data("never"))
                #expect(try store.value(for: "past") == nil)
                try store.flush()
            }
        }
    }
}
