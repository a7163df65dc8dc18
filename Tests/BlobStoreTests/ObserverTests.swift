import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStore

/// The events a stream delivered until it ended.
private func collect(_ events: AsyncStream<StoreEvent>) async -> [StoreEvent] {
    var seen: [StoreEvent] = []
    for await event in events { seen.append(event) }
    return seen
}

@Suite("Observers and the counts every process shares")
struct ObserverTests {
    @Test func removalsEvictionsAndClearingAreReported() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var configuration = fast
        configuration.limits = EvictionLimits(maxEntries: 3, lowWater: 1)
        let store = try BlobStore(at: directory.child("s"), configuration: configuration)
        let events = store.events()  // subscribed before the first write, not when the task starts
        let listening = Task { await collect(events) }
        let late = store.events(bufferingPolicy: .bufferingNewest(1))

        try await store.put(Data("1"), for: "a")
        try await store.put(Data("2"), for: "b")
        #expect(try await store.remove("a"))
        #expect(try await !store.remove("a"), "nothing to report")
        try await store.put(Data("3"), for: "x/1")
        try await store.put(Data("4"), for: "x/2")
        try await store.put(Data("5"), for: "x/3")  // a fourth entry: over the limit of 3
        #expect(try await store.removeAll(withKeyPrefix: "x/") == 3)
        try await store.put(Data("6"), for: "old", expires: Date(timeIntervalSinceNow: -1))
        try await store.collectGarbage()
        try await store.put(Data("7"), for: "c")
        try await store.put(Data("8"), for: "d")
        #expect(try await store.removeAll() == 2)
        try await store.close()

        let seen = await listening.value
        try #require(seen.count == 7)
        #expect(Array(seen[0..<2]) == [.removed("a"), .evicted("b", .s3fifo)])
        #expect(Set(seen[2..<5]) == [.removed("x/1"), .removed("x/2"), .removed("x/3")], "in the index's order")
        #expect(Array(seen[5...]) == [.evicted("old", .expired), .cleared(count: 2)])
        #expect(await collect(late) == [.cleared(count: 2)], "only the newest, for a stream that keeps one")
    }

    @Test func aStreamNobodyReadsAnyMoreIsDropped() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try BlobStore(at: directory.child("s"), configuration: fast)
        defer { try? store.close() }
        let reader = Task {
            for await _ in store.events() {}
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(store.observers.isObserved)
        reader.cancel()
        _ = await reader.value
        #expect(!store.observers.isObserved)
    }

    @Test func hitsMissesAndEvictionsPersistAcrossOpenings() throws {
        try withTemporaryDirectory { directory in
            var configuration = fast
            configuration.limits = EvictionLimits(maxEntries: 1, lowWater: 1)
            let path = directory.child("s")
            try withStore(path, configuration) { store in
                #expect(try store.stats().allProcesses == StoreUsage())
                try store.put(Data("1"), for: "a")
                #expect(try store.value(for: "a") == Data("1"))
                #expect(try store.value(for: "absent") == nil)
                try store.put(Data("2"), for: "b")  // evicts "a"
            }
            try withStore(path, configuration) { store in
                let before = try #require(try store.stats().allProcesses)
                #expect(before == StoreUsage(hits: 1, misses: 1, evictions: 1))
                #expect(try store.value(for: "b") == Data("2"))
                let stats = try store.stats()
                #expect(stats.hits == 1 && stats.misses == 0, "this process's own")
                #expect(stats.allProcesses == StoreUsage(hits: 2, misses: 1, evictions: 1))
                #expect(stats.allProcesses?.hitRatio == 2.0 / 3.0)
            }
        }
    }
}
