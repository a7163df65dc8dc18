import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@Suite(.serialized) struct ProcessTests {
    /// A put loop with durability `always` is SIGKILLed at a random moment, again and again on
    /// one store; after each kill the store opens and every acknowledged put reads back right.
    @Test func putLoopKilledWithSIGKILLLosesNothingAcknowledged() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        var generator = SystemRandomNumberGenerator()
        var acknowledgedTotal = 0
        for round in 0..<crashRounds {
            let loop = try PutLoop(
                store: directory, prefix: "r\(round)", count: 100_000, durability: "always", in: scratch)
            #expect(loop.waitForFirstAcknowledgement(), "round \(round): the loop started putting")
            usleep(UInt32.random(in: 0...100_000, using: &generator))
            loop.child.send(SIGKILL)
            let (acknowledged, execution) = try loop.end()
            #expect(execution.signal == SIGKILL)
            #expect(!acknowledged.isEmpty)
            acknowledgedTotal += acknowledged.count
            let store = try BlobStore(at: directory)
            defer { try? store.close() }
            for index in acknowledged {
                #expect(
                    try store.value(for: StoreKey("r\(round)-\(index)")) == tortureValue(index),
                    "round \(round), put \(index)")
            }
            #expect(store.recoveryReport.isClean, "round \(round): \(store.recoveryReport)")
        }
        #expect(acknowledgedTotal >= crashRounds)
    }

    /// Two processes put 1,000 keys each into one store at the same time: all 2,000 are readable.
    @Test func twoProcessesWritingAtOnceLoseNothing() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        // Both open the store, then start putting at the same moment.
        let start = Date(timeIntervalSinceNow: 1)
        let first = try PutLoop(
            store: directory, prefix: "a", count: 1000, durability: "none", startAt: start, in: scratch)
        let second = try PutLoop(
            store: directory, prefix: "b", count: 1000, durability: "none", startAt: start, in: scratch)
        let (firstAcknowledged, firstEnd) = try first.end()
        let (secondAcknowledged, secondEnd) = try second.end()
        #expect(firstEnd.status == 0)
        #expect(secondEnd.status == 0)
        #expect(firstAcknowledged.count == 1000)
        #expect(secondAcknowledged.count == 1000)
        let store = try BlobStore(at: directory)
        defer { try? store.close() }
        // The two loops really ran at the same time: each began before the other finished.
        let created = { (key: String) in try store.info(for: StoreKey(key))?.created ?? .distantFuture }
        #expect(try created("a-0") < created("b-999") && created("b-0") < created("a-999"))
        #expect(try store.stats().entries == 2000)
        #expect(try store.stats().distinctBlobs == 64)
        for prefix in ["a", "b"] {
            for index in 0..<1000 {
                #expect(try store.value(for: StoreKey("\(prefix)-\(index)")) == tortureValue(index))
            }
        }
        #expect(store.recoveryReport.isClean)
    }

    /// This process has read the whole journal when a bit in it flips; another process opens
    /// the store, drops the damaged records by compacting into a new generation and appends.
    /// This process notices the new generation and reloads: it sees the other's writes and no
    /// longer the dropped records.
    @Test func anOpenStoreReloadsAfterAnotherProcessRepairsDamage() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let store = try BlobStore(at: directory, configuration: .init(durability: .none))
        defer { try? store.close() }
        for index in 0..<10 { try store.put(Data("mine \(index)".utf8), for: StoreKey("mine-\(index)")) }
        var journal = try Data(contentsOf: URL(fileURLWithPath: directory + "/journal-1"))
        journal[journal.count / 2] ^= 0x40
        try journal.write(to: URL(fileURLWithPath: directory + "/journal-1"))
        let writer = try PutLoop(store: directory, prefix: "theirs", count: 50, durability: "none", in: scratch)
        #expect(try writer.end().execution.status == 0)
        #expect(try store.value(for: "theirs-49") == tortureValue(49))
        let stats = try store.stats()
        #expect(stats.generation == 2)
        #expect(stats.entries > 50 && stats.entries < 60)
        #expect(try store.value(for: "mine-0") == Data("mine 0".utf8))
        #expect(try store.value(for: "mine-9") == nil)
        try store.put(Data("after".utf8), for: "after")
        #expect(
            try Data(contentsOf: URL(fileURLWithPath: directory + "/CURRENT"))
                == Data("blobstore-format 1\ngeneration 2\nmanifest manifest-2\n".utf8))
    }

    /// A store open in this process sees another process's writes on its next operation.
    @Test func anOpenStoreSeesAnotherProcesssWrites() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let store = try BlobStore(at: directory)
        defer { try? store.close() }
        try store.put(Data("mine".utf8), for: "mine")
        let writer = try PutLoop(store: directory, prefix: "theirs", count: 50, durability: "none", in: scratch)
        #expect(try writer.end().execution.status == 0)
        #expect(try store.value(for: "theirs-49") == tortureValue(49))
        #expect(try store.stats().entries == 51)
        try store.put(Data("mine again".utf8), for: "mine")
        #expect(try store.value(for: "mine") == Data("mine again".utf8))
    }

    /// A reader skips catching up while LOCK's change counter stands still; every kind of change
    /// another process makes (puts, removes, a new generation) moves it, so the reader still
    /// sees each one on its next operation, misses included.
    @Test func theChangeCounterMovesWithEveryChangeOfAnotherProcess() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let directory = scratch.child("store")
        let store = try BlobStore(at: directory, configuration: .init(durability: .none))
        defer { try? store.close() }
        func counter() throws -> UInt64 {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/LOCK"))
            #expect(bytes.count == 4096)
            return bytes.prefix(8).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        }
        #expect(try store.value(for: "theirs-0") == nil)
        let before = try counter()

        let writer = try PutLoop(store: directory, prefix: "theirs", count: 20, durability: "none", in: scratch)
        #expect(try writer.end().execution.status == 0)
        let afterPuts = try counter()
        #expect(afterPuts >= before + 20)
        #expect(try store.value(for: "theirs-19") == tortureValue(19))

        #expect(try ChildProcess.run(tortureExecutable, ["compact", directory], in: scratch).status == 0)
        #expect(try counter() > afterPuts)
        #expect(try store.stats().generation == 2)
        #expect(try store.value(for: "theirs-0") == tortureValue(0))

        // A miss answered from the index after another process put the key would be stale.
        #expect(try store.value(for: "late") == nil)
        let late = try PutLoop(store: directory, prefix: "late", count: 1, durability: "none", in: scratch)
        _ = try late.end()
        #expect(try store.value(for: "late-0") == tortureValue(0))
    }
}
