@_spi(Testing) import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

/// Runs `blobstore-torture arguments…` to its end; returns how it ended and what it printed.
private func torture(_ arguments: [String]) throws -> Execution {
    try withTemporaryDirectory { scratch in try ChildProcess.run(tortureExecutable, arguments, in: scratch) }
}

private func blobPath(_ store: String, _ value: Data) -> String {
    let hex = SHA256Digest(bytes: sha256(value))!.hex
    return store + "/blobs/sha256/" + hex.prefix(2) + "/" + hex
}

/// SHA-256 through the store itself: the digest `put` returns for `value` in a scratch store.
private func sha256(_ value: Data) -> [UInt8] {
    withTemporaryDirectory { scratch in try! withStore(scratch.child("store")) { try $0.put(value, for: "x").bytes } }
}

@Suite(.serialized) struct MaintenanceProcessTests {
    /// Fills a store with puts, overwrites and removes; returns what it must hold.
    private func populate(_ directory: String) throws -> [String: Data] {
        let store = try BlobStore(at: directory, configuration: .init(durability: .always))
        defer { try? store.close() }
        var expected: [String: Data] = [:]
        for index in 0..<40 {
            let value = Data("value \(index % 13) ".utf8) + Data(repeating: UInt8(index), count: index * 10)
            try store.put(value, for: StoreKey("k\(index % 30)"))
            expected["k\(index % 30)"] = value
        }
        for index in stride(from: 0, to: 30, by: 7) {
            try store.remove(StoreKey("k\(index)"))
            expected["k\(index)"] = nil
        }
        return expected
    }

    private func checkHolds(_ directory: String, _ expected: [String: Data], _ context: String) throws {
        let store = try BlobStore(at: directory)
        defer { try? store.close() }
        #expect(store.recoveryReport.isClean, "\(context): \(store.recoveryReport)")
        #expect(try [1, 2].contains(store.stats().generation), "\(context)")
        #expect(Set(try store.entries().map { String(decoding: $0.key.bytes, as: UTF8.self) }) == Set(expected.keys))
        for (key, value) in expected {
            #expect(try store.value(for: StoreKey(key)) == value, "\(context): \(key)")
        }
        try store.put(Data("after".utf8), for: "after")
        try store.compact()
        try store.collectGarbage(gracePeriod: .zero)
        #expect(try store.value(for: "after") == Data("after".utf8))
    }

    /// Compaction is SIGKILLed at each of its steps: the store opens on the old or the new
    /// generation, never a mix, with every entry.
    @Test(arguments: [
        TestHooks.Point.compactionManifestWritten, .compactionJournalCreated, .compactionCurrentSwapped,
        .compactionOldGenerationRemoved,
    ])
    func compactionKilledAtAStepLosesNothing(point: TestHooks.Point) throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let expected = try populate(directory)
        let run = try torture(["compact", directory, point.rawValue])
        #expect(run.signal == SIGKILL)
        let swapped = point == .compactionCurrentSwapped || point == .compactionOldGenerationRemoved
        let current = try String(contentsOfFile: directory + "/CURRENT", encoding: .utf8)
        #expect(current.contains("generation 2") == swapped)
        try checkHolds(directory, expected, "\(point)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(names.filter { $0.hasPrefix("journal-") || $0.hasPrefix("manifest-") }.count == 2)
    }

    /// A compaction killed after writing `manifest-2`, whose manifest is then damaged (or cut
    /// short): CURRENT still names generation 1, which opens whole.
    @Test(arguments: [true, false])
    func aDamagedUnusedManifestIsIgnored(truncate: Bool) throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let expected = try populate(directory)
        _ = try torture(["compact", directory, TestHooks.Point.compactionJournalCreated.rawValue])
        let manifest = directory + "/manifest-2"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
        if truncate { bytes = bytes.prefix(bytes.count / 2) } else { bytes[bytes.count / 2] ^= 0x10 }
        try bytes.write(to: URL(fileURLWithPath: manifest))
        try checkHolds(directory, expected, truncate ? "truncated manifest-2" : "damaged manifest-2")
    }

    /// This process has generation 1 open while a compaction is killed after swapping CURRENT
    /// (leaving journal-1 behind) and another one completes; then CURRENT's old inode number
    /// comes back (simulated with a hard link), as a file system may hand it out again. This
    /// process must still notice the new generation: its next put must not go to journal-1.
    @Test func anOpenStoreFollowsGenerationsEvenWhenCURRENTsInodeNumberComesBack() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let expected = try populate(directory)
        let store = try BlobStore(at: directory, configuration: .init(durability: .always))
        #expect(try store.value(for: "k1") == expected["k1"])
        let current = directory + "/CURRENT"
        #expect(link(current, current + ".keep") == 0)
        let killed = try torture(["compact", directory, TestHooks.Point.compactionCurrentSwapped.rawValue])
        #expect(killed.signal != nil)
        #expect(try torture(["compact", directory]).stdout == "compacted\n")
        #expect(
            !FileManager.default.fileExists(atPath: directory + "/journal-1"), "compaction removes every old generation"
        )
        let generation3 = try Data(contentsOf: URL(fileURLWithPath: current))
        try generation3.write(to: URL(fileURLWithPath: current + ".keep"))
        #expect(rename(current + ".keep", current) == 0)
        try store.put(Data("after".utf8), for: "after")
        try store.close()
        let reopened = try BlobStore(at: directory)
        defer { try? reopened.close() }
        #expect(try reopened.value(for: "after") == Data("after".utf8))
        for (key, value) in expected { #expect(try reopened.value(for: StoreKey(key)) == value) }
    }

    /// A writer stopped (SIGSTOP) between linking its blob and journaling it holds the store's
    /// lock: GC waits for it (or gives up with `busy`), and the blob survives.
    @Test func garbageCollectionNeverDeletesABlobAWriterHasLinkedButNotJournaled() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let writer = try ChildProcess.start(tortureExecutable, ["stop-after-link", directory, "racing"], in: scratch)
        let deadline = Date(timeIntervalSinceNow: 30)
        while !isStopped(writer.pid) && Date() < deadline { usleep(5000) }
        #expect(isStopped(writer.pid), "the writer stopped after linking")
        #expect(storedCopy(of: tortureValue(7), in: directory) != nil, "linked (or packed), not journaled")

        let impatient = try BlobStore(at: directory, configuration: .init(lockTimeout: .milliseconds(300)))
        let error = #expect(throws: BlobStoreError.self) { try impatient.collectGarbage(gracePeriod: .zero) }
        #expect(error?.code == .busy)
        try impatient.close()
        #expect(storedCopy(of: tortureValue(7), in: directory) != nil)

        let store = try BlobStore(at: directory)
        defer { try? store.close() }
        let collected = DispatchSemaphore(value: 0)
        let outcome = LockedBox<Result<GarbageCollectionReport, any Error>?>(nil)
        DispatchQueue.global().async {
            outcome.set(Result { try store.collectGarbage(gracePeriod: .zero) })
            collected.signal()
        }
        usleep(300_000)
        #expect(outcome.get() == nil, "GC waits for the writer's lock")
        writer.send(SIGCONT)
        let ended = try writer.wait()
        #expect(ended.status == 0)
        #expect(ended.stdout == "ack\n")
        collected.wait()
        let report = try #require(try outcome.get()?.get())
        #expect(report.blobsDeleted == 0 && report.packsDeleted == 0)
        #expect(storedCopy(of: tortureValue(7), in: directory) != nil)
        #expect(try store.value(for: "racing") == tortureValue(7))
    }

    /// A process puts continuously while `blobstore compact` and `blobstore gc --grace 0s` run
    /// from other processes, again and again: every acknowledged put reads back right.
    @Test func aWriterLosesNothingWhileCompactAndGCRunRepeatedly() throws {
        try withTemporaryDirectory { scratch in
            let directory = scratch.child("store")
            let count = 20_000
            let loop = try PutLoop(store: directory, prefix: "w", count: count, durability: "none", in: scratch)
            #expect(loop.waitForFirstAcknowledgement())
            var runs = 0
            while loop.child.isRunning {
                let command = runs % 2 == 0 ? ["compact"] : ["gc", "--grace", "0s"]
                let run = try blobstore(["--store", directory] + command, in: scratch)
                #expect(run.status == 0, "\(command): \(String(decoding: run.standardError, as: UTF8.self))")
                runs += 1
            }
            let (acknowledged, execution) = try loop.end()
            #expect(execution.status == 0)
            #expect(acknowledged.count == count)
            #expect(runs >= 6, "compact and gc ran again and again while the writer wrote")
            let store = try BlobStore(at: directory)
            defer { try? store.close() }
            #expect(try store.stats().generation > 1, "compactions ran")
            for index in acknowledged {
                #expect(try store.value(for: StoreKey("w-\(index)")) == tortureValue(index), "put \(index)")
            }
            #expect(try store.verify().isClean)
        }
    }
}

/// A value shared between threads.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
