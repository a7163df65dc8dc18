import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStore
@testable import BlobStoreCache

/// Blocks the producer of key `k` until `count` other callers wait for it (at most 30 s).
private func waitForWaiters(_ store: BlobStore, _ count: Int) {
    for _ in 0..<30_000 {
        if Flight.waiterCount("k", in: store) >= count { return }
        usleep(1000)
    }
    Issue.record("only \(Flight.waiterCount("k", in: store)) callers waited")
}

/// The everyday calls of the library surface: one read of value and metadata, removing
/// everything, errors an app can show.
@Suite struct EverydayCallsTests {
    @Test func entryReadsValueAndInformationTogether() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let expiry = Date(timeIntervalSinceNow: 3600)
                let digest = try store.put(Data("v1"), for: "k", metadata: Data("m1"), expires: expiry)
                let big = Data(repeating: 7, count: 200 << 10)
                try store.put(big, for: "big", metadata: Data("loose"))
                let entry = try #require(try store.entry(for: "k"))
                #expect(entry.value == Data("v1"))
                #expect(entry.info.digest == digest)
                #expect(entry.info.metadata == Data("m1"))
                #expect(entry.info.size == 2)
                #expect(abs(entry.info.expires!.timeIntervalSince(expiry)) < 0.002)
                #expect(try store.entry(for: "big")?.value == big)
                #expect(try store.entry(for: "big")?.info.metadata == Data("loose"))
                #expect(try store.entry(for: "absent") == nil)
                try store.put(Data("v2"), for: "k", metadata: Data("m2"))
                let again = try #require(try store.entry(for: "k"))
                #expect(again.value == Data("v2") && again.info.metadata == Data("m2"))
                #expect(try store.stats().hits == 4)
            }
        }
    }

    @Test func entryOfADamagedBlobIsAMiss() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                let digest = try store.put(Data("intact value"), for: "k")
                let file = path + "/blobs/sha256/" + String(digest.hex.prefix(2)) + "/" + digest.hex
                chmod(file, 0o600)
                writeBytes(file, Array("damaged val!".utf8))
                #expect(try store.entry(for: "k") == nil)
                #expect(try store.stats().damagedReads == 1)
            }
        }
    }

    @Test func removeAllEmptiesTheStoreAndDeletesItsBlobsAtOnce() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                #expect(try store.removeAll() == 0)
                for index in 0..<500 { try store.put(Data("small \(index)"), for: StoreKey("s\(index)")) }
                for index in 0..<5 {
                    try store.put(Data(repeating: UInt8(index), count: 100 << 10), for: StoreKey("l\(index)"))
                }
                let before = try store.stats()
                #expect(before.entries == 505)
                #expect(try store.removeAll() == 505)
                let after = try store.stats()
                #expect(after.entries == 0)
                #expect(after.distinctBlobs == 0)
                #expect(after.storedBytes == 0)
                #expect(after.generation == before.generation + 1)
                #expect(try store.value(for: "s1") == nil)
                #expect(regularFiles(under: path + "/blobs").isEmpty, "loose blobs are deleted by the call itself")
                try store.put(Data("after"), for: "new")
            }
            try withStore(path) { store throws in
                #expect(try store.entries().map(\.key) == ["new"])
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test func removeAllEmptiesBothTiersOfACachedStore() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { disk throws in
                let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20))
                try cache.put(Data("a"), for: "a")
                try cache.put(Data("b"), for: "b")
                #expect(try cache.value(for: "a") == Data("a"))
                #expect(cache.memory!.count == 2)
                #expect(try cache.removeAll() == 2)
                #expect(cache.memory!.count == 0)
                #expect(try cache.value(for: "a") == nil)
                #expect(try disk.stats().entries == 0)
            }
        }
    }

    @Test func updateInACachedStoreReachesBothTiers() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { disk throws in
                let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20))
                try cache.put(Data("both"), for: "both", metadata: Data("m1"))
                try cache.put(Data("mem"), for: "mem", metadata: Data("m1"), placement: .memoryOnly)
                #expect(try cache.update("both", metadata: Data("m2"), expires: nil))
                #expect(try cache.update("mem", metadata: Data("m2"), expires: nil))
                #expect(try !cache.update("absent", metadata: Data(), expires: nil))
                let both = try #require(try cache.entry(for: "both"))
                #expect(both.value == Data("both") && both.info.metadata == Data("m2") && both.tier == .disk)
                #expect(try cache.entry(for: "both")?.tier == .memory)
                let memoryOnly = try #require(try cache.entry(for: "mem"))
                #expect(memoryOnly.info.metadata == Data("m2") && memoryOnly.tier == .memory)
                #expect(try disk.info(for: "mem") == nil)
            }
        }
    }

    @Test func errorsCarryTheirMessageCodeAndUnderlyingError() throws {
        let system = BlobStoreError.system(.open, path: "/nowhere/x", errno: ENOENT)
        #expect(system.localizedDescription == system.description)
        #expect(system.localizedDescription.contains("/nowhere/x"))
        #expect(system.failureReason == String(cString: strerror(ENOENT)))
        let bridged = system as NSError
        #expect(bridged.domain == "BlobStore.BlobStoreError")
        #expect(bridged.code == 1)
        #expect(bridged.userInfo[NSFilePathErrorKey] as? String == "/nowhere/x")
        #expect(bridged.userInfo["BlobStoreErrorCode"] as? String == "notFound")

        struct Broken: Codable, Equatable { var value: Double }
        let thrown = #expect(throws: BlobStoreError.self) {
            try ObjectCoding.encode(Broken(value: .nan), with: JSONObjectCoder())
        }
        #expect(thrown?.code == .unencodable)
        #expect(thrown?.underlyingError is EncodingError)
        #expect((thrown! as NSError).userInfo[NSUnderlyingErrorKey] != nil)
        #expect(BlobStoreError(.closed, "closed").errorCode == 13)
        #expect(BlobStoreError(BlobStoreError.Code("elsewhere"), "?").errorCode == 0)
    }

    @Test func removalByPredicatePrefixAndDate() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                for index in 0..<10 {
                    try store.put(Data("a\(index)"), for: StoreKey("https://a.example/\(index)"))
                    try store.put(Data("b\(index)"), for: StoreKey("https://b.example/\(index)"))
                }
                #expect(try store.removeAll(withKeyPrefix: "https://a.example/") == 10)
                #expect(try store.entries().allSatisfy { $0.key.string.hasPrefix("https://b.example/") })
                #expect(try store.removeAll { $0.key.string.hasSuffix("/3") || $0.size > 100 } == 1)
                #expect(try store.stats().entries == 9)
                usleep(20_000)
                let cut = Date()
                usleep(20_000)
                #expect(try store.value(for: "https://b.example/5") == Data("b5"))
                try store.flush()
                #expect(try store.removeAll(accessedBefore: cut) == 8, "all but the one read after the cut")
                #expect(try store.entries().map(\.key) == ["https://b.example/5"])
                #expect(try store.removeAll { _ in false } == 0)
            }
        }
    }

    @Test func aPredicateSeesASnapshotAndAnOverwriteMeanwhileIsKept() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                try store.put(Data("old"), for: "k")
                try store.put(Data("other"), for: "j")
                let removed = try store.removeAll { info in
                    // The predicate may call the store: no lock is held while it runs.
                    if info.key == "k" { try store.put(Data("new"), for: "k") }
                    return true
                }
                #expect(removed == 1, "j goes; k was overwritten after the snapshot and stays")
                #expect(try store.value(for: "k") == Data("new"))
                #expect(try store.value(for: "j") == nil)
            }
        }
    }

    @Test func updateChangesMetadataAndExpiryAndKeepsTheValue() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let later = Date(timeIntervalSinceNow: 7200)
            try withStore(path) { store throws in
                let big = Data(repeating: 3, count: 100 << 10)
                try store.put(Data("small"), for: "small", metadata: Data("m1"))
                try store.put(big, for: "big", metadata: Data("m1"))
                let before = try #require(try store.info(for: "small"))
                let journal = try store.stats().journalBytes
                #expect(try store.update("small", metadata: Data("m2"), expires: later))
                #expect(try store.update("big", metadata: Data("m3"), expires: nil))
                #expect(try !store.update("absent", metadata: Data(), expires: nil))
                #expect(try store.stats().journalBytes - journal < 300, "two records, no value")
                let after = try #require(try store.entry(for: "small"))
                #expect(after.value == Data("small") && after.info.metadata == Data("m2"))
                #expect(after.info.created == before.created)
                #expect(after.info.lastAccess >= before.lastAccess)
                #expect(abs(after.info.expires!.timeIntervalSince(later)) < 0.002)
                #expect(try store.entry(for: "big")?.info.metadata == Data("m3"))
                #expect(try store.stats().distinctBlobs == 2)
            }
            try withStore(path) { store throws in
                #expect(try store.entry(for: "small")?.info.metadata == Data("m2"))
                #expect(try store.entry(for: "big")?.value == Data(repeating: 3, count: 100 << 10))
                #expect(try store.verify().isClean)
            }
        }
    }

    @Test(arguments: [10, 100 << 10, 2 << 20])
    func aPutWithTheWrongExpectedDigestStoresNothing(size: Int) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                let data = Data(repeating: 9, count: size)
                let right = SHA256Hasher.hash(data)
                let wrong = SHA256Hasher.hash(Data("something else"))
                let thrown = #expect(throws: BlobStoreError.self) { try store.put(data, for: "k", expecting: wrong) }
                #expect(thrown?.code == .digestMismatch)
                #expect(thrown?.message.contains(right.hex) == true)
                #expect(try store.stats().entries == 0)
                #expect(regularFiles(under: path + "/tmp").isEmpty, "no temporary file is left")
                #expect(regularFiles(under: path + "/blobs").isEmpty)
                #expect(try store.put(data, for: "k", expecting: right) == right)
                #expect(try store.value(for: "k") == data)
            }
        }
    }

    @Test func concurrentCallersForOneKeyProduceItOnce() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let runs = Mutex(0)
                let results = Mutex<[Data]>([])
                let done = DispatchGroup()
                for _ in 0..<8 {
                    done.enter()
                    Thread.detachNewThread {
                        defer { done.leave() }
                        let value = try? store.value(
                            for: "k",
                            orInsert: {
                                runs.withLock { $0 += 1 }
                                usleep(500_000)
                                return Data("produced")
                            }, metadata: Data("m"))
                        results.withLock { $0.append(value ?? Data()) }
                    }
                }
                done.wait()
                #expect(runs.withLock { $0 } == 1)
                #expect(results.withLock { $0 } == Array(repeating: Data("produced"), count: 8))
                #expect(try store.entry(for: "k")?.info.metadata == Data("m"))
                #expect(
                    try store.value(
                        for: "k",
                        orInsert: {
                            Issue.record("produced again"); return Data()
                        }) == Data("produced"))
            }
        }
    }

    @Test func aFailedProductionReachesEveryWaiterAndStoresNothing() throws {
        struct Failure: Error {}
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let failures = Mutex(0)
                let runs = Mutex(0)
                // Threads of their own, all started before the producer returns (a thread pool
                // may run the callers one after another, and a later caller produces again).
                let done = DispatchGroup()
                for _ in 0..<4 {
                    done.enter()
                    Thread.detachNewThread {
                        defer { done.leave() }
                        do {
                            _ = try store.value(
                                for: "k",
                                orInsert: {
                                    runs.withLock { $0 += 1 }
                                    usleep(500_000)
                                    throw Failure()
                                })
                        } catch is Failure {
                            failures.withLock { $0 += 1 }
                        } catch {
                            Issue.record("\(error)")
                        }
                    }
                }
                done.wait()
                #expect(runs.withLock { $0 } == 1)
                #expect(failures.withLock { $0 } == 4)
                #expect(try store.value(for: "k") == nil)
                #expect(try store.value(for: "k", orInsert: { Data("second try") }) == Data("second try"))
            }
        }
    }

    @Test func everyEverydayCallHasAnAsyncFormThatHonoursCancellation() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try BlobStore(at: directory.child("s"), configuration: fast)
        defer { try? store.close() }
        try await store.put(Data("v"), for: "k", metadata: Data("m"))
        #expect(try await store.entry(for: "k")?.value == Data("v"))
        #expect(try await store.info(for: "k")?.metadata == Data("m"))
        #expect(try await store.contains("k"))
        #expect(try await store.entries().count == 1)
        #expect(try await store.stats().entries == 1)
        #expect(try await store.update("k", metadata: Data("m2"), expires: nil))
        #expect(try await store.compact().entries == 1)
        #expect(try await store.collectGarbage(dryRun: true).dryRun)
        #expect(try await store.removeAll(withKeyPrefix: "x") == 0)
        #expect(try await store.removeAll(accessedBefore: Date.distantPast) == 0)
        #expect(try await store.removeAll { $0.key == "nothing" } == 0)
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await store.removeAll()
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(try await store.stats().entries == 1, "a cancelled call does nothing")
        #expect(try await store.removeAll() == 1)
    }
}
