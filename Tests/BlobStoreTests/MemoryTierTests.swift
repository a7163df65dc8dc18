import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore
@testable import BlobStoreCache

/// What a memory tier should hold, computed the simplest way: an array in recency order.
struct MemoryReferenceModel {
    let maxBytes: Int
    let maxCount: Int?
    /// Most recent first.
    var entries: [(key: StoreKey, cost: Int)] = []

    var keys: [StoreKey] { entries.map(\.key) }
    var cost: Int { entries.reduce(0) { $0 + $1.cost } }

    func contains(_ key: StoreKey) -> Bool { entries.contains { $0.key == key } }

    /// Inserts as the most recent and evicts from the least recent; returns whether it is kept.
    mutating func insert(_ key: StoreKey, cost: Int) -> Bool {
        remove(key)
        guard cost <= maxBytes, maxCount != 0 else { return false }
        entries.insert((key, cost), at: 0)
        while self.cost > maxBytes || entries.count > (maxCount ?? .max) {
            entries.removeLast()
        }
        return true
    }

    /// Makes `key` the most recent; returns whether it was there.
    mutating func use(_ key: StoreKey) -> Bool {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return false }
        entries.insert(entries.remove(at: index), at: 0)
        return true
    }

    mutating func remove(_ key: StoreKey) {
        entries.removeAll { $0.key == key }
    }
}

@Suite("Memory tier")
struct MemoryTierTests {
    @Test("Matches a reference LRU model over random operations", arguments: [(1, 400, nil), (2, 1000, 5), (3, 50, 2)])
    func matchesReferenceModel(seed: UInt64, maxBytes: Int, maxCount: Int?) throws {
        var random = SplitMix64(seed: seed)
        let tier = try MemoryTier(maxBytes: maxBytes, maxCount: maxCount)
        var model = MemoryReferenceModel(maxBytes: maxBytes, maxCount: maxCount)
        var values: [StoreKey: Data] = [:]
        for step in 0..<3000 {
            let key = StoreKey("k\(Int.random(in: 0..<24, using: &random))")
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                let value = Data(repeating: UInt8(step % 256), count: Int.random(in: 0..<120, using: &random))
                let entry = MemoryEntry(value: value, metadata: Data([1, 2]), isOnDisk: false)
                let kept = tier.insert(entry, for: key)
                #expect(kept == model.insert(key, cost: entry.cost(for: key)))
                values[key] = kept ? value : nil
            case 4..<9:
                let hit = tier.entry(for: key)
                #expect((hit != nil) == model.use(key), "step \(step)")
                if let hit { #expect(hit.value == values[key]) }
            default:
                #expect(tier.remove(key) == model.contains(key))
                model.remove(key)
            }
            #expect(tier.keys == model.keys, "step \(step)")
            #expect(tier.totalCost == model.cost)
            #expect(tier.totalCost <= maxBytes)
            #expect(tier.count <= maxCount ?? .max)
        }
    }

    @Test("An entry larger than the bound is not kept and drops the older one")
    func oversizedEntryIsNotKept() throws {
        let tier = try MemoryTier(maxBytes: 100)
        #expect(tier.insert(MemoryEntry(value: Data(count: 10), isOnDisk: false), for: "a"))
        #expect(!tier.insert(MemoryEntry(value: Data(count: 200), isOnDisk: false), for: "a"))
        #expect(tier.entry(for: "a") == nil)
        #expect(tier.totalCost == 0)
    }

    @Test("Expired entries read as missing and are dropped")
    func expiredEntriesAreMissing() throws {
        let tier = try MemoryTier(maxBytes: 100)
        tier.insert(MemoryEntry(value: Data("x"), expires: Date(timeIntervalSinceNow: -1), isOnDisk: false), for: "a")
        #expect(!tier.contains("a"))
        #expect(tier.entry(for: "a") == nil)
        #expect(tier.count == 0)
    }

    @Test("Negative bounds are refused")
    func negativeBoundsAreRefused() {
        #expect(throws: BlobStoreError.self) { try MemoryTier(maxBytes: -1) }
        #expect(throws: BlobStoreError.self) { try MemoryTier(maxBytes: 10, maxCount: -1) }
    }

    @Test("removeAll gives everything back")
    func removeAllEmptiesTheTier() throws {
        let tier = try MemoryTier(maxBytes: 1000, maxCount: 10)
        for index in 0..<5 { tier.insert(MemoryEntry(value: Data("v"), isOnDisk: false), for: StoreKey("k\(index)")) }
        tier.removeAll()
        #expect(tier.count == 0)
        #expect(tier.totalCost == 0)
        #expect(tier.keys.isEmpty)
    }
}
