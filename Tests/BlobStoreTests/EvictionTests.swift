import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore

/// What the store should hold, computed independently: LRU by last touch (ties by key),
/// deduplicated sizes, unreferenced blobs counted until the next eviction round deletes them.
private struct ReferenceModel {
    let capacity: UInt64
    let maxEntries: Int?
    let lowWater: Double
    var entries: [StoreKey: (content: Int, touched: Int)] = [:]
    var garbage: Set<Int> = []
    var clock = 0
    let sizes: [Int: UInt64]

    func stored() -> UInt64 { Set(entries.values.map(\.content)).reduce(0) { $0 + sizes[$1]! } }
    func garbageBytes() -> UInt64 { garbage.reduce(0) { $0 + sizes[$1]! } }

    mutating func release(_ content: Int) {
        if !entries.values.contains(where: { $0.content == content }) { garbage.insert(content) }
    }

    mutating func put(_ key: StoreKey, content: Int) {
        clock += 1
        let old = entries.updateValue((content, clock), forKey: key)
        garbage.remove(content)
        if let old { release(old.content) }
        let over = stored() + garbageBytes() > capacity || maxEntries.map { entries.count > $0 } == true
        guard over else { return }
        garbage = []
        let byteTarget = UInt64(Double(capacity) * lowWater)
        let countTarget = maxEntries.map { Int(Double($0) * lowWater) }
        let order = entries.filter { $0.key != key }.sorted {
            $0.value.touched != $1.value.touched ? $0.value.touched < $1.value.touched : $0.key < $1.key
        }
        for (victim, _) in order {
            if stored() <= byteTarget && countTarget.map({ entries.count <= $0 }) != false { break }
            entries[victim] = nil
        }
        garbage = []
    }

    mutating func get(_ key: StoreKey) -> Int? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.content, clock)
        return entry.content
    }

    mutating func remove(_ key: StoreKey) {
        guard let old = entries.removeValue(forKey: key) else { return }
        release(old.content)
    }
}

@Suite struct EvictionTests {
    private func diskBytes(_ path: String) -> UInt64 {
        regularFiles(under: path + "/blobs").reduce(0) { total, name in
            var info = stat()
            precondition(lstat(path + "/blobs/" + name, &info) == 0)
            return total + UInt64(info.st_size)
        }
    }

    private func content(_ id: Int) -> Data {
        Data(repeating: UInt8(id), count: 1000 + id * 700)
    }

    /// Clock ticks are milliseconds: a pause makes every touch's time distinct, as the model's are.
    private func tick() { usleep(2500) }

    @Test(arguments: [(UInt64(20_000), Int?.none), (UInt64(1_000_000), Int?.some(8))])
    func survivorsMatchAReferenceModel(capacity: UInt64, maxEntries: Int?) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            // Loose blobs, whose disk (whole 4 KiB blocks) the model can compute; packs have
            // tests of their own (PackTests).
            var configuration = looseOnly
            configuration.limits = EvictionLimits(
                capacity: capacity, maxEntries: maxEntries, lowWater: 0.8, policy: .lru)
            configuration.compactionMinimumJournalBytes = .max
            let sizes = Dictionary(
                uniqueKeysWithValues: (0..<12).map { ($0, (UInt64(content($0).count) + 4095) / 4096 * 4096) })
            var model = ReferenceModel(capacity: capacity, maxEntries: maxEntries, lowWater: 0.8, sizes: sizes)
            var random = SplitMix64(seed: 42)
            try withStore(path, configuration) { store throws in
                for step in 0..<300 {
                    let key = StoreKey("k\(Int.random(in: 0..<20, using: &random))")
                    switch Int.random(in: 0..<10, using: &random) {
                    case 0..<5:
                        let id = Int.random(in: 0..<12, using: &random)
                        try store.put(content(id), for: key)
                        model.put(key, content: id)
                        #expect(diskBytes(path) <= capacity, "capacity holds after put \(step)")
                    case 5..<9:
                        let value = try store.value(for: key)
                        #expect(value == model.get(key).map(content), "get at step \(step)")
                    default:
                        try store.remove(key)
                        model.remove(key)
                    }
                    let survivors = Set(try store.entries().map(\.key))
                    #expect(survivors == Set(model.entries.keys), "survivors after step \(step)")
                    if let maxEntries { #expect(survivors.count <= maxEntries) }
                    tick()
                }
            }
        }
    }

    @Test func expiredEntriesGoBeforeLeastRecentlyUsedOnes() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = fast
            configuration.limits = EvictionLimits(maxEntries: 4, lowWater: 1)
            try withStore(path, configuration) { store throws in
                try store.put(Data("old"), for: "old")
                tick()
                try store.put(Data("soon"), for: "soon", expires: Date(timeIntervalSinceNow: 0.05))
                tick()
                try store.put(Data("b"), for: "b")
                try store.put(Data("c"), for: "c")
                usleep(60_000)
                try store.put(Data("d"), for: "d")
                #expect(Set(try store.entries().map(\.key)) == ["old", "b", "c", "d"], "the expired entry went first")
            }
        }
    }

    @Test func entriesIdleLongerThanTheMaximumAgeAreEvictedByTheNextWrite() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = fast
            configuration.limits = EvictionLimits(maxAge: .milliseconds(300))
            try withStore(path, configuration) { store throws in
                try store.put(Data("idle"), for: "idle")
                try store.put(Data("read"), for: "read")
                usleep(200_000)
                _ = try store.value(for: "read")
                usleep(200_000)
                try store.put(Data("new"), for: "new")
                #expect(Set(try store.entries().map(\.key)) == ["read", "new"])
            }
        }
    }

    @Test func aValueLargerThanTheCapacityIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = fast
            configuration.limits = EvictionLimits(capacity: 1000)
            let file = dir.child("big")
            writeBytes(file, [UInt8](repeating: 7, count: 1001))
            try withStore(path, configuration) { store throws in
                #expect(throws: BlobStoreError.self) { try store.put(Data(repeating: 1, count: 1001), for: "big") }
                let error = #expect(throws: BlobStoreError.self) {
                    try store.put(contentsOf: URL(fileURLWithPath: file), for: "big")
                }
                #expect(error?.code == .tooLarge)
                #expect(error?.message.contains("capacity of 1000 bytes") == true)
                try store.put(Data(repeating: 1, count: 1000), for: "fits")
                #expect(try store.value(for: "fits")?.count == 1000, "a value of exactly the capacity is kept")
            }
            #expect(regularFiles(under: path + "/tmp").isEmpty)
            #expect(regularFiles(under: path + "/blobs").isEmpty, "small values are packed")
            #expect(regularFiles(under: path + "/packs").count == 1, "the refused values left nothing")
        }
    }

    @Test func twoHundredValuesInAFiveMebibyteStoreKeepTheRecentlyReadOnes() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = fast
            configuration.limits = EvictionLimits(capacity: 5 << 20)
            try withStore(path, configuration) { store throws in
                for index in 0..<200 {
                    var value = Data(repeating: UInt8(index % 251), count: 100 << 10)
                    value[0] = UInt8(index / 251)
                    value[1] = UInt8(index % 7)
                    try store.put(value, for: StoreKey("v\(index)"))
                    if index % 10 == 0 {
                        tick()
                        _ = try store.value(for: "v0")
                        _ = try store.value(for: "v1")
                    }
                    #expect(diskBytes(path) <= 5 << 20)
                }
                #expect(try store.stats().storedBytes <= 5 << 20)
                #expect(try diskBytes(path) == store.stats().storedBytes, "no blob is left behind by eviction")
                #expect(diskBytes(path) > 4 << 20, "eviction stops at the low-water mark, not far below it")
                #expect(try store.value(for: "v0") != nil)
                #expect(try store.value(for: "v1") != nil)
                #expect(try store.value(for: "v199") != nil)
                #expect(try store.value(for: "v2") == nil)
            }
        }
    }

    @Test func limitsAtTheEdgeOfTheIntegersNeverTrap() throws {
        #expect(StoreIndex.lowWaterMark(.max, 1) == .max)
        #expect(StoreIndex.lowWaterMark(.max, 0.999_999_999_999_999_9) == 18_446_744_073_709_549_568)
        #expect(StoreIndex.lowWaterMark(.max - 1, 0.5) == 1 << 63)
        #expect(StoreIndex.lowWaterMark(1000, 0.9) == 900)
        try withTemporaryDirectory { dir throws in
            var configuration = fast
            configuration.limits = EvictionLimits(capacity: .max, maxEntries: .max, lowWater: 1)
            try withStore(dir.child("a"), configuration) { store throws in
                try store.put(Data("a"), for: "a")
                try store.put(Data("b"), for: "b")
                #expect(try store.stats().entries == 2)
            }
            configuration.limits = EvictionLimits(capacity: .max, maxEntries: 1, lowWater: 1)
            try withStore(dir.child("b"), configuration) { store throws in
                try store.put(Data("a"), for: "a")
                try store.put(Data("b"), for: "b")
                #expect(try store.entries().map(\.key) == ["b"])
            }
        }
    }

    @Test func aStreamLargerThanTheCapacityIsCutOffAsItPassesIt() throws {
        try withTemporaryDirectory { dir throws in
            var configuration = fast
            configuration.limits = EvictionLimits(capacity: 1 << 20)
            try withStore(dir.child("s"), configuration) { store throws in
                signal(SIGPIPE, SIG_IGN)
                let pipe = Pipe()
                let written = LockedCounter()
                let producer = Thread {
                    let chunk = [UInt8](repeating: 7, count: 64 << 10)
                    let fd = pipe.fileHandleForWriting.fileDescriptor
                    while written.value < 64 << 20 {
                        let count = chunk.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                        if count <= 0 { break }
                        written.add(count)
                    }
                    try? pipe.fileHandleForWriting.close()
                }
                producer.start()
                let error = #expect(throws: BlobStoreError.self) {
                    try store.put(readingFrom: pipe.fileHandleForReading, for: "stream")
                }
                try pipe.fileHandleForReading.close()
                #expect(error?.code == .tooLarge)
                #expect(error?.message.contains("at least") == true)
                while !producer.isFinished { usleep(1000) }
                #expect(written.value < 4 << 20, "the stream was cut off near the capacity, not read to its end")
                #expect(regularFiles(under: dir.child("s") + "/tmp").isEmpty)
            }
        }
    }

    @Test func limitsAreRecordedInTheStore() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var configuration = fast
            let limits = EvictionLimits(capacity: 123_456, maxEntries: 77, maxAge: .seconds(3600), lowWater: 0.75)
            configuration.limits = limits
            try withStore(path, configuration) { store in #expect(store.limits == limits) }
            try withStore(path) { store throws in
                #expect(store.limits == limits, "a store opened without limits applies the recorded ones")
                try store.recordLimits(EvictionLimits(capacity: 1 << 30))
            }
            try withStore(path) { store in #expect(store.limits == EvictionLimits(capacity: 1 << 30)) }
            configuration.limits = EvictionLimits(lowWater: 0.2)
            let error = #expect(throws: BlobStoreError.self) { try BlobStore(at: path, configuration: configuration) }
            #expect(error?.code == .invalidArgument)
        }
    }
}

/// A count shared with a producer thread.
private final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }
    func add(_ amount: Int) { lock.withLock { count += amount } }
}
