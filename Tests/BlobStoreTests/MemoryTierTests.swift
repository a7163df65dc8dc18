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

    /// ``MemoryTier/admit(_:for:)``'s rule: inserts if the entry fits, or if `frequency` of its
    /// key is above that of each entry it would push out, from the least recent on.
    mutating func admit(_ key: StoreKey, cost: Int, frequency: (StoreKey) -> Int) -> Bool {
        if !contains(key) {
            var bytesOver = self.cost + cost - maxBytes
            var countOver = entries.count + 1 - (maxCount ?? .max)
            for victim in entries.reversed() where bytesOver > 0 || countOver > 0 {
                guard frequency(key) > frequency(victim.key) else { return false }
                bytesOver -= victim.cost
                countOver -= 1
            }
            guard bytesOver <= 0, countOver <= 0 else { return false }
        }
        return insert(key, cost: cost)
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

    @Test("A value read from disk pushes out an entry only when its key was asked for more often lately")
    func admissionWeighsFrequencies() throws {
        let tier = try MemoryTier(maxBytes: 1000, maxCount: 2)
        let entry = MemoryEntry(value: Data("v".utf8), isOnDisk: true)
        for key: StoreKey in ["a", "b"] {
            #expect(tier.entry(for: key) == nil)
            #expect(tier.admit(entry, for: key), "room for it: kept")
            for _ in 0..<3 { #expect(tier.entry(for: key) != nil) }
        }
        #expect(tier.entry(for: "c") == nil)
        #expect(!tier.admit(entry, for: "c"), "asked for once, against four times")
        #expect(tier.keys == ["b", "a"])
        for _ in 0..<4 { #expect(tier.entry(for: "c") == nil) }
        #expect(tier.frequency(of: "c") > tier.frequency(of: "a"))
        #expect(tier.admit(entry, for: "c"))
        #expect(tier.keys == ["c", "b"], "the least recently used went")
        // An entry under the key is replaced whatever the frequencies.
        #expect(tier.admit(MemoryEntry(value: Data("w".utf8), isOnDisk: true), for: "b"))
        #expect(tier.entry(for: "b")?.value == Data("w".utf8))
    }

    @Test("A large value read from disk must have been read more often than each entry it would push out")
    func admissionWeighsEveryVictim() throws {
        let tier = try MemoryTier(maxBytes: 1000)
        for index in 0..<5 {
            let key = StoreKey("k\(index)")
            tier.insert(MemoryEntry(value: Data(count: 180), isOnDisk: true), for: key)
            // The least recent is read once, the others three times.
            for _ in 0..<(index == 0 ? 1 : 3) { #expect(tier.entry(for: key) != nil) }
        }
        let large = MemoryEntry(value: Data(count: 500), isOnDisk: true)
        for _ in 0..<2 { #expect(tier.entry(for: "large") == nil) }
        #expect(!tier.admit(large, for: "large"), "it would push out k1 too, read three times")
        #expect(tier.count == 5)
        for _ in 0..<2 { #expect(tier.entry(for: "large") == nil) }
        #expect(tier.admit(large, for: "large"), "read four times: more than each of k0, k1, k2")
        #expect(tier.keys == ["large", "k4", "k3"])
    }

    @Test("An expired entry is room for a value read from disk, however often it was read")
    func expiredEntryIsRoom() throws {
        let tier = try MemoryTier(maxBytes: 1000, maxCount: 1)
        for _ in 0..<6 { #expect(tier.entry(for: "old") == nil) }
        tier.insert(
            MemoryEntry(value: Data("v".utf8), expires: Date(timeIntervalSinceNow: -1), isOnDisk: true), for: "old")
        #expect(tier.entry(for: "new") == nil)
        #expect(tier.admit(MemoryEntry(value: Data("w".utf8), isOnDisk: true), for: "new"))
        #expect(tier.keys == ["new"])
    }

    @Test("Reads going round more keys than the tier holds keep a steady part of them; inserting each, none")
    func admissionKeepsPartOfALoop() throws {
        let admitting = try MemoryTier(maxBytes: 1 << 20, maxCount: 10)
        let inserting = try MemoryTier(maxBytes: 1 << 20, maxCount: 10)
        let entry = MemoryEntry(value: Data("v".utf8), isOnDisk: true)
        var hits = (admitting: 0, inserting: 0)
        for round in 0..<30 {
            for index in 0..<20 {
                let key = StoreKey("k\(index)")
                if admitting.entry(for: key) != nil {
                    if round >= 10 { hits.admitting += 1 }
                } else {
                    admitting.admit(entry, for: key)
                }
                if inserting.entry(for: key) != nil {
                    if round >= 10 { hits.inserting += 1 }
                } else {
                    inserting.insert(entry, for: key)
                }
            }
        }
        // 20 rounds of 20 reads: about half of them hit the ten keys kept.
        #expect(hits.admitting >= 120, "\(hits)")
        #expect(hits.inserting == 0)
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

    @Test("A decoded form is kept with the entry it was made from, counted, and not with another")
    func decodedFormIsKeptWithItsEntry() throws {
        let tier = try MemoryTier(maxBytes: 1000)
        let metadata = Data("m1".utf8)
        tier.insert(MemoryEntry(value: Data(count: 100), metadata: metadata, isOnDisk: false), for: "a")
        let found = try #require(tier.entry(for: "a"))
        #expect(found.decoded == nil)
        let cost = tier.totalCost
        let decoded = TestDecoded(cost: 50)
        tier.attach(decoded, to: "a", madeFrom: found)
        #expect(tier.entry(for: "a")?.decoded === decoded)
        #expect(tier.totalCost == cost + 50)
        // The entry replaced (a new metadata, as a 304's refresh writes): the form made from the
        // old one is not kept with it.
        tier.insert(MemoryEntry(value: Data(count: 100), metadata: Data("m2".utf8), isOnDisk: false), for: "a")
        tier.attach(TestDecoded(cost: 50), to: "a", madeFrom: found)
        #expect(tier.entry(for: "a")?.decoded == nil)
        #expect(tier.totalCost == cost)
        // Nor with one holding another value under the same metadata.
        tier.insert(MemoryEntry(value: Data(count: 99), metadata: found.metadata, isOnDisk: false), for: "a")
        tier.attach(TestDecoded(cost: 50), to: "a", madeFrom: found)
        #expect(tier.entry(for: "a")?.decoded == nil)
        // Nor with an entry that is gone.
        tier.remove("a")
        tier.attach(TestDecoded(cost: 50), to: "a", madeFrom: found)
        #expect(tier.count == 0)
        #expect(tier.totalCost == 0)
    }

    @Test("A decoded form's cost evicts the least recently used entries, and one too large is not kept")
    func decodedFormCostEvicts() throws {
        let tier = try MemoryTier(maxBytes: 300)
        tier.insert(MemoryEntry(value: Data(count: 100), isOnDisk: false), for: "a")
        tier.insert(MemoryEntry(value: Data(count: 100), isOnDisk: false), for: "b")
        let found = try #require(tier.entry(for: "b"))
        tier.attach(TestDecoded(cost: 150), to: "b", madeFrom: found)
        #expect(tier.keys == ["b"])
        #expect(tier.totalCost == found.cost(for: "b") + 150)
        tier.attach(TestDecoded(cost: 10), to: "b", madeFrom: found)
        #expect((tier.entry(for: "b")?.decoded as? TestDecoded)?.cost == 150, "a kept form is not replaced")
        // "c" pushes out "b" with its form; a form that would make "c" alone exceed the bound is
        // not kept.
        tier.insert(MemoryEntry(value: Data(count: 100), isOnDisk: false), for: "c")
        #expect(tier.keys == ["c"])
        let other = try #require(tier.entry(for: "c"))
        tier.attach(TestDecoded(cost: 250), to: "c", madeFrom: other)
        #expect(tier.entry(for: "c")?.decoded == nil)
        #expect(tier.totalCost == other.cost(for: "c"))
    }
}

/// A decoded form of an entry's metadata, for the tests: its cost as given.
final class TestDecoded: DecodedMetadata {
    let cost: Int
    init(cost: Int) { self.cost = cost }
}
