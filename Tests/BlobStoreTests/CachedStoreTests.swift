import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore
@testable import BlobStoreCache

/// A typed object for the tests.
private struct Item: Codable, Equatable {
    var id: Int
    var name: String
    var tags: [String]
}

/// Runs `body` with a cached store over a fresh disk store with a memory tier of `maxBytes`.
private func withCachedStore(
    maxBytes: Int = 1 << 20, maxCount: Int? = nil, _ body: (CachedStore) throws -> Void
) throws {
    try withTemporaryDirectory { directory in
        try withStore(directory.child("store")) { disk in
            let memory = try MemoryTier(maxBytes: maxBytes, maxCount: maxCount)
            try body(CachedStore(disk: disk, memory: memory))
        }
    }
}

@Suite("Cached store and typed objects")
struct CachedStoreTests {
    @Test("Typed objects in both tiers match a reference model over random operations", arguments: [7, 8, 9])
    func typedObjectsMatchReferenceModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        try withCachedStore(maxBytes: 600) { cache in
            var model = MemoryReferenceModel(maxBytes: 600, maxCount: nil)
            var onDisk: [StoreKey: Item] = [:]
            var memoryOnly: [StoreKey: Item] = [:]
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            for step in 0..<600 {
                let key = StoreKey("item-\(Int.random(in: 0..<12, using: &random))")
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<3:
                    let item = Item(
                        id: step, name: String(repeating: "n", count: Int.random(in: 0..<150, using: &random)),
                        tags: ["t\(step % 3)"])
                    let memoryOnlyPut = Bool.random(using: &random)
                    try cache.put(object: item, for: key, placement: memoryOnlyPut ? .memoryOnly : .memoryAndDisk)
                    let cost = try encoder.encode(item).count + key.bytes.count
                    _ = model.insert(key, cost: cost)
                    onDisk[key] = memoryOnlyPut ? nil : item
                    memoryOnly[key] = memoryOnlyPut ? item : nil
                case 3..<9:
                    let inMemoryBefore = cache.memory?.contains(key) == true
                    #expect(inMemoryBefore == model.contains(key), "step \(step)")
                    // One read: the entry (whose tier is known) or the object.
                    let (tier, object): (StoredEntry.Tier?, Item?)
                    if Bool.random(using: &random) {
                        let entry = try cache.entry(for: key)
                        tier = entry?.tier
                        object = try entry.map { try JSONDecoder().decode(Item.self, from: $0.value) }
                    } else {
                        (tier, object) = (nil, try cache.object(Item.self, for: key))
                    }
                    if model.use(key) {
                        #expect(tier == nil || tier == .memory, "step \(step)")
                        #expect(object == (memoryOnly[key] ?? onDisk[key]))
                    } else if let item = onDisk[key] {
                        #expect(!inMemoryBefore, "step \(step)")
                        #expect(tier == nil || tier == .disk, "step \(step)")
                        #expect(object == item)
                        // Kept as the tier admits a value read from disk.
                        let memory = try #require(cache.memory)
                        _ = model.admit(
                            key, cost: try encoder.encode(item).count + key.bytes.count,
                            frequency: { memory.frequency(of: $0) })
                    } else {
                        #expect(object == nil, "step \(step)")
                        memoryOnly[key] = nil
                    }
                default:
                    try cache.remove(key)
                    model.remove(key)
                    onDisk[key] = nil
                    memoryOnly[key] = nil
                }
                #expect(cache.memory?.keys == model.keys, "step \(step)")
                #expect(Set(try cache.disk.entries().map(\.key)) == Set(onDisk.keys), "step \(step)")
            }
        }
    }

    @Test("A memory hit records an access on the disk tier")
    func memoryHitTouchesDisk() throws {
        try withCachedStore { cache in
            try cache.put(Data("v"), for: "k")
            let before = try #require(try cache.disk.info(for: "k")).lastAccess
            Thread.sleep(forTimeInterval: 0.01)
            #expect(try cache.entry(for: "k")?.tier == .memory)
            let after = try #require(try cache.disk.info(for: "k")).lastAccess
            #expect(after > before)
        }
    }

    @Test("A key removed from disk behind the memory tier's back reads as missing")
    func diskRemovalIsNoticed() throws {
        try withCachedStore { cache in
            try cache.put(Data("v"), for: "k")
            try cache.disk.remove("k")
            #expect(try cache.entry(for: "k") == nil)
            #expect(cache.memory?.contains("k") == false)
        }
    }

    @Test("With a recheck interval, a checked memory hit is served without the disk until the interval ends")
    func recheckInterval() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store")) { disk in
                let cache = CachedStore(
                    disk: disk, memory: try MemoryTier(maxBytes: 1 << 20), recheckInterval: .milliseconds(300))
                try cache.put(Data("v1"), for: "k")
                // The first hit checks the disk and notes it; then a writer behind the memory
                // tier's back (another process, in effect) replaces the value.
                #expect(try cache.entry(for: "k")?.value == Data("v1"))
                try disk.put(Data("v2"), for: "k")
                let within = try cache.entry(for: "k")
                #expect(within?.value == Data("v1"))
                #expect(within?.tier == .memory)
                Thread.sleep(forTimeInterval: 0.4)
                #expect(try cache.entry(for: "k")?.value == Data("v2"))
                // This process's own writes are seen at once, interval or not.
                try cache.put(Data("v3"), for: "k")
                #expect(try cache.entry(for: "k")?.value == Data("v3"))
                try cache.remove("k")
                #expect(try cache.entry(for: "k") == nil)
            }
        }
    }

    @Test("What a reader decodes of an entry's metadata is made once per entry held in memory")
    func decodedMetadataIsKeptWithTheMemoryEntry() throws {
        try withCachedStore { cache in
            var decodings: [Data] = []
            let decode = { (metadata: Data) -> (any DecodedMetadata)? in
                decodings.append(metadata)
                return metadata.isEmpty ? nil : TestDecoded(cost: metadata.count)
            }
            try cache.put(Data("v"), for: "k", metadata: Data("m1".utf8))
            let first = try #require(try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: decode))
            let second = try #require(try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: decode))
            #expect(decodings == [Data("m1".utf8)])
            #expect(first.decoded != nil && second.decoded === first.decoded)
            // New metadata for the same value (as a 304's refresh writes) is decoded anew.
            try cache.put(Data("v"), for: "k", metadata: Data("m22".utf8))
            let refreshed = try #require(try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: decode))
            #expect(decodings == [Data("m1".utf8), Data("m22".utf8)])
            #expect((refreshed.decoded as? TestDecoded)?.cost == 3)
            // A disk hit is decoded, and kept with the entry it brings into memory.
            cache.memory?.removeAll()
            _ = try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: decode)
            let fromMemory = try #require(try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: decode))
            #expect(decodings.count == 3)
            #expect(fromMemory.decoded != nil)
            #expect(cache.memory?.entry(for: "k")?.decoded === fromMemory.decoded)
            // Nothing decoded (metadata the reader does not read) is not kept: asked again.
            try cache.put(Data("w"), for: "n")
            _ = try cache.entryOpening(for: "n", readingUpTo: 1 << 20, decoding: decode)
            let again = try #require(try cache.entryOpening(for: "n", readingUpTo: 1 << 20, decoding: decode))
            #expect(again.decoded == nil)
            #expect(decodings.count == 5)
        }
    }

    @Test("A disk hit that fits the memory tier without its decoded form, not with it, is kept without it")
    func diskHitKeptWithoutADecodedFormThatDoesNotFit() throws {
        try withCachedStore(maxBytes: 1000) { cache in
            try cache.put(Data(count: 800), for: "k", metadata: Data(count: 100))
            cache.memory?.removeAll()
            let read = try #require(
                try cache.entryOpening(for: "k", readingUpTo: 1 << 20, decoding: { _ in TestDecoded(cost: 150) }))
            #expect(read.decoded != nil, "the reader still gets what it decoded")
            let kept = try #require(cache.memory?.entry(for: "k"), "the entry itself fits, and is kept")
            #expect(kept.decoded == nil)
            #expect(cache.memory?.totalCost == kept.cost(for: "k"))
        }
    }

    @Test("A memory-only put removes the disk entry under the key")
    func memoryOnlyPutRemovesDiskEntry() throws {
        try withCachedStore { cache in
            try cache.put(Data("old"), for: "k")
            try cache.put(Data("new"), for: "k", placement: .memoryOnly)
            #expect(try !cache.disk.contains("k"))
            #expect(try cache.value(for: "k") == Data("new"))
        }
    }

    @Test("Metadata and expiry are kept in both tiers")
    func metadataAndExpiry() throws {
        try withCachedStore { cache in
            let expires = Date(timeIntervalSinceNow: 3600)
            try cache.put(object: Item(id: 1, name: "a", tags: []), for: "k", metadata: Data("meta"), expires: expires)
            let memoryHit = try #require(try cache.entry(for: "k"))
            #expect(memoryHit.info.metadata == Data("meta"))
            cache.memory?.removeAll()
            let diskHit = try #require(try cache.entry(for: "k"))
            #expect(diskHit.tier == .disk)
            #expect(diskHit.info.metadata == Data("meta"))
            #expect(abs((diskHit.info.expires ?? .distantPast).timeIntervalSince(expires)) < 0.01)

            try cache.put(
                object: Item(id: 2, name: "b", tags: []), for: "gone", expires: Date(timeIntervalSinceNow: -1))
            #expect(try cache.object(Item.self, for: "gone") == nil)
        }
    }

    @Test("Decoding as the wrong type throws undecodable and leaves the entry")
    func wrongTypeIsUndecodable() throws {
        try withCachedStore { cache in
            try cache.put(object: Item(id: 1, name: "a", tags: []), for: "k")
            let error = try #require(throws: BlobStoreError.self) { try cache.object([Int].self, for: "k") }
            #expect(error.code == .undecodable)
            #expect(error.message.contains("'k'"))
            #expect(try cache.object(Item.self, for: "k")?.id == 1)
            try cache.put(Data("not json"), for: "raw")
            #expect(throws: BlobStoreError.self) { try cache.object(Item.self, for: "raw") }
        }
    }

    @Test("A value the coder refuses throws unencodable and stores nothing")
    func unencodableValue() throws {
        try withCachedStore { cache in
            let error = try #require(throws: BlobStoreError.self) { try cache.put(object: Double.nan, for: "nan") }
            #expect(error.code == .unencodable)
            #expect(try !cache.contains("nan"))
        }
    }

    @Test("Property lists round-trip, and equal objects share one blob")
    func propertyListCoding() throws {
        try withCachedStore { cache in
            let coder = PropertyListObjectCoder(format: .binary)
            let item = Item(id: 3, name: "plist", tags: ["a", "b"])
            let first = try cache.put(object: item, for: "a", coder: coder)
            let second = try cache.put(object: item, for: "b", coder: coder)
            #expect(first == second)
            cache.memory?.removeAll()
            #expect(try cache.object(Item.self, for: "a", coder: coder) == item)
            #expect(try cache.value(for: "a")?.starts(with: Data("bplist".utf8)) == true, "binary, not JSON")
            #expect(try cache.disk.stats().distinctBlobs == 1)
        }
    }

    @Test("An OpenStep property list is refused with unencodable, and nothing is stored")
    func openStepIsRefused() throws {
        try withCachedStore { cache in
            do {
                try cache.put(
                    object: Item(id: 1, name: "n", tags: []), for: "k",
                    coder: PropertyListObjectCoder(format: .openStep))
                Issue.record("an OpenStep property list was written")
            } catch let error as BlobStoreError {
                #expect(error.code == .unencodable)
            }
            let entry = try cache.entry(for: "k")
            #expect(entry == nil)
        }
    }

    @Test("touch records nothing for an absent key")
    func touchAbsentKey() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store")) { store in
                #expect(try !store.touch("absent"))
                try store.put(Data("v"), for: "present")
                #expect(try store.touch("present"))
            }
        }
    }
}
