import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStore
@testable import BlobStoreCache

/// What every storage of this module does, whatever tier it keeps values in.
private func checkContract(_ storage: any BlobStorage, keepsMemoryOnly: Bool) throws {
    let digest = try storage.put(Data("v1"), for: "k", metadata: Data("m"), expires: nil, placement: .memoryAndDisk)
    #expect(digest == SHA256Hasher.hash(Data("v1")))
    let entry = try #require(try storage.entry(for: "k"))
    #expect(entry.value == Data("v1") && entry.info.digest == digest && entry.info.size == 2)
    #expect(entry.info.key == "k" && entry.info.metadata == Data("m"))
    #expect(try storage.info(for: "k")?.digest == digest)
    #expect(try storage.contains("k"))

    #expect(try storage.update("k", metadata: Data("m2"), expires: nil))
    let updated = try #require(try storage.entry(for: "k"))
    #expect(updated.info.metadata == Data("m2") && updated.value == Data("v1"))
    #expect(try !storage.update("absent", metadata: Data(), expires: nil))

    try storage.put(Data("v2"), for: "k", metadata: Data(), expires: nil, placement: .memoryOnly)
    #expect(try storage.info(for: "k") == nil, "no lasting entry outlives a memory-only put")
    #expect(try storage.value(for: "k") == (keepsMemoryOnly ? Data("v2") : nil))

    try storage.put(Data("old"), for: "e", expires: Date(timeIntervalSinceNow: -1))
    #expect(try storage.entry(for: "e") == nil)
    #expect(try !storage.contains("e"))

    try storage.put(Data("x"), for: "x")
    #expect(try storage.remove("x"))
    #expect(try !storage.remove("x"))
    #expect(try storage.value(for: "x") == nil)

    try storage.put(Data("y"), for: "y")
    #expect(try storage.removeAll() >= 1)
    #expect(try storage.value(for: "y") == nil && !storage.contains("y"))

    try checkFiles(storage, keepsMemoryOnly: keepsMemoryOnly)
}

/// Values stored from files and written to files (what the HTTP cache's downloads use): a small
/// value and one larger than the pack threshold, after bytes already in the destination; then a
/// memory-only put from a file, unless `keepsMemoryOnly` is `nil` (a storage that ignores
/// placements).
private func checkFiles(_ storage: any BlobStorage, keepsMemoryOnly: Bool?) throws {
    let scratch = TemporaryDirectory()
    defer { scratch.cleanup() }
    let source = URL(fileURLWithPath: scratch.child("source"))
    let target = URL(fileURLWithPath: scratch.child("target"))
    func writeValue(_ key: StoreKey) throws -> (EntryInfo?, Data) {
        try Data("prefix").write(to: target)
        let handle = try FileHandle(forWritingTo: target)
        defer { try? handle.close() }
        try handle.seekToEnd()
        let info = try storage.writeValue(for: key, to: handle)
        return (info, try Data(contentsOf: target))
    }
    let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
    for value in [Data("small"), large] {
        try value.write(to: source)
        let digest = try storage.put(
            contentsOf: source, for: "f", metadata: Data("fm"), expires: nil, placement: .memoryAndDisk)
        #expect(digest == SHA256Hasher.hash(value))
        let (info, written) = try writeValue("f")
        #expect(info?.digest == digest && info?.metadata == Data("fm") && info?.size == UInt64(value.count))
        #expect(written == Data("prefix") + value)
        #expect(try storage.value(for: "f") == value)
        // Read into memory up to 100,000 bytes, else opened (where the storage can).
        switch try storage.entry(for: "f", readingUpTo: 100_000) {
        case .value(let entry)?:
            #expect(entry.value == value && entry.info.digest == digest)
        case .opened(let opened, let handle)?:
            #expect(value.count > 100_000, "a small value comes in memory")
            let bytes = try handle.readToEnd()
            #expect(opened.digest == digest && bytes == value)
        case .chunked(let opened, let chunks)?:
            #expect(value.count > 100_000, "a small value comes in memory")
            let bytes = try chunks.read(0..<chunks.count)
            #expect(opened.digest == digest && bytes == value)
        case nil:
            Issue.record("no entry under f")
        }
    }
    let (absent, untouched) = try writeValue("absent")
    #expect(absent == nil && untouched == Data("prefix"), "nothing written for a missing key")
    guard let keepsMemoryOnly else { return }

    try Data("mem").write(to: source)
    let digest = try storage.put(contentsOf: source, for: "f", metadata: Data(), expires: nil, placement: .memoryOnly)
    #expect(digest == SHA256Hasher.hash(Data("mem")))
    #expect(try storage.info(for: "f") == nil, "no lasting entry outlives a memory-only put")
    #expect(try storage.value(for: "f") == (keepsMemoryOnly ? Data("mem") : nil))
    try storage.remove("f")
}

/// A coder a user might write: JSON in Base64, and an error of its own for what is not Base64.
private struct Base64JSONCoder: ObjectCoder {
    struct NotBase64: Error {}

    var name: String { "Base64 JSON" }

    func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try JSONObjectCoder().encode(value).base64EncodedData())
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard let json = Data(base64Encoded: data) else { throw NotBase64() }
        return try JSONObjectCoder().decode(type, from: json)
    }
}

/// A count that escaping closures share.
private final class Count: Sendable {
    private let value = Atomic(0)
    func add() { value.add(1, ordering: .relaxed) }
    var current: Int { value.load(ordering: .relaxed) }
}

private struct Point: Codable, Equatable {
    var x: Int
    var y: Int
}

@Suite("One storage protocol: the disk store, the memory and disk store, a double")
struct StorageProtocolTests {
    @Test func theDiskStoreKeepsTheContract() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store")) { store in
                try checkContract(store, keepsMemoryOnly: false)
            }
        }
    }

    /// The disk store keeping large values as chunks: its large value is read a range at a
    /// time (`EntryRead.chunked`).
    @Test func aChunkingDiskStoreKeepsTheContract() throws {
        var configuration = fast
        configuration.chunkThreshold = 200_000
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store"), configuration) { store in
                try checkContract(store, keepsMemoryOnly: false)
                // Such a value, as the contract's large one, opens by its chunks.
                try store.put(Data(SplitMix64.bytes(300_000, seed: 1)), for: "large")
                guard case .chunked? = try store.entry(for: "large", readingUpTo: 100_000) else {
                    Issue.record("a 300,000-byte value was not opened by its chunks")
                    return
                }
            }
        }
    }

    @Test func theCachedStoreKeepsTheContractWithAndWithoutMemory() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store")) { disk in
                try checkContract(
                    CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20)), keepsMemoryOnly: true)
                try checkContract(CachedStore(disk: disk), keepsMemoryOnly: false)
            }
        }
    }

    @Test("A storage with only the requirements stores from and writes to files through its defaults")
    func defaultsWriteAndReadFiles() throws {
        try checkFiles(DictionaryStorage(), keepsMemoryOnly: nil)
    }

    @Test("A damaged value is not written: nothing reaches the destination, and the blob is quarantined")
    func damagedValueIsNotWritten() throws {
        try withTemporaryDirectory { directory in
            try withStore(directory.child("store"), looseOnly) { store in
                let value = Data(repeating: 7, count: 100_000)
                let digest = try store.put(value, for: "k")
                flipBit(
                    directory.child("store") + "/blobs/sha256/" + digest.hex.prefix(2) + "/" + digest.hex, at: 500,
                    bit: 3)
                let target = directory.child("target")
                #expect(FileManager.default.createFile(atPath: target, contents: nil))
                let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
                defer { try? handle.close() }
                #expect(try store.writeValue(for: "k", to: handle) == nil)
                #expect(try Data(contentsOf: URL(fileURLWithPath: target)).isEmpty)
                #expect(try store.stats().damagedReads == 1)
            }
        }
    }

    @Test func typedObjectsRunOnAnyStorageWithAnyCoder() throws {
        let double = DictionaryStorage()
        try double.put(object: Point(x: 1, y: 2), for: "p")
        #expect(double.puts == 1)
        #expect(try double.value(for: "p") == Data(#"{"x":1,"y":2}"#.utf8), "JSON with sorted keys by default")
        #expect(try double.object(Point.self, for: "p") == Point(x: 1, y: 2))

        try withTemporaryDirectory { directory in
            try withStore(directory.child("store")) { store in
                let coder = Base64JSONCoder()
                try store.put(object: Point(x: 3, y: 4), for: "p", coder: coder)
                #expect(try store.value(for: "p") == Data(#"{"x":3,"y":4}"#.utf8).base64EncodedData())
                #expect(try store.object(Point.self, for: "p", coder: coder) == Point(x: 3, y: 4))

                try store.put(Data("not base64!"), for: "raw")
                let error = try #require(throws: BlobStoreError.self) {
                    try store.object(Point.self, for: "raw", coder: coder)
                }
                #expect(error.code == .undecodable && error.message.contains("Base64 JSON"))
                #expect(error.underlyingError is Base64JSONCoder.NotBase64)
            }
        }
    }

    @Test func getOrComputeRunsOnceOnAnyStorage() throws {
        let double = DictionaryStorage()
        let produced = Count()
        let results = Mutex<[Data]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                let value = try? double.value(
                    for: "k",
                    orInsert: {
                        produced.add()
                        // The others join this production (at most 30 s).
                        for _ in 0..<30_000 where Flight.waiterCount("k", in: double) < 3 { usleep(1000) }
                        return Data("made")
                    })
                results.withLock { $0.append(value ?? Data()) }
            }
        }
        done.wait()
        #expect(produced.current == 1)
        #expect(results.withLock { $0 } == Array(repeating: Data("made"), count: 4))
        #expect(double.puts == 1)
    }

    @Test func aLeaderLooksAgainOnlyWhenItsOwnKeyLandedMeanwhile() throws {
        let double = DictionaryStorage()
        let mark = Flight.mark()
        _ = try double.value(for: "other", orInsert: { Data("o") })  // another key lands
        let first = Flight.join("k", in: double, markedAt: mark)
        #expect(first.leads && !first.looksAgain, "another key's landing costs no second look")
        first.flight.land("k", in: double, .success(Data()))

        let again = Flight.mark()
        _ = try double.value(for: "k2", orInsert: { Data("2") })  // this key lands after the mark
        let second = Flight.join("k2", in: double, markedAt: again)
        #expect(second.leads && second.looksAgain)
        second.flight.land("k2", in: double, .success(Data()))
    }

    @Test func asyncCallersOfOneKeyShareOneProduction() async throws {
        let double = DictionaryStorage()
        let produced = Count()
        let values = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<6 {
                group.addTask {
                    try await double.value(
                        for: "k",
                        orInsert: {
                            produced.add()
                            for _ in 0..<3000 where Flight.waiterCount("k", in: double) < 5 {
                                try await Task.sleep(for: .milliseconds(10))
                            }
                            return Data("made")
                        })
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(produced.current == 1)
        #expect(values == Array(repeating: Data("made"), count: 6))
        #expect(double.puts == 1)
    }

    @Test func aCancelledReadStopsWaitingAndThrowsCancellationError() async throws {
        let double = DictionaryStorage()
        try await double.put(Data("v"), for: "k")
        double.blockReads()
        // Lets the read go after 20 s whatever happens, so that a wrong implementation fails
        // (it would return the value) instead of hanging.
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(20))
            double.releaseReads()
        }
        let read = Task { try await double.entry(for: "k") }
        try await Task.sleep(for: .milliseconds(50))
        read.cancel()
        let outcome = await read.result
        double.releaseReads()
        watchdog.cancel()
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    @Test func aWriteCancelledBeforeItStartsDoesNothing() async throws {
        let double = DictionaryStorage()
        let write = Task {
            while !Task.isCancelled { await Task.yield() }
            return try await double.put(Data("v"), for: "k", metadata: Data(), expires: nil, placement: .memoryAndDisk)
        }
        write.cancel()
        await #expect(throws: CancellationError.self) { try await write.value }
        #expect(double.puts == 0)
    }

    @Test func theCachedStoreHasAsyncForms() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let disk = try BlobStore(at: directory.child("store"), configuration: fast)
        defer { try? disk.close() }
        let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20))
        try await cache.put(object: Point(x: 5, y: 6), for: "p")
        #expect(try await cache.object(Point.self, for: "p") == Point(x: 5, y: 6))
        #expect(try await cache.entry(for: "p")?.tier == .memory)
        #expect(try await cache.update("p", metadata: Data("m"), expires: nil))
        #expect(try await cache.info(for: "p")?.metadata == Data("m"))
        #expect(try await cache.contains("p"))
        #expect(try await cache.remove("p"))
        #expect(try await cache.value(for: "p") == nil)
        try await cache.put(Data("a"), for: "a", metadata: Data(), expires: nil, placement: .memoryAndDisk)
        #expect(try await cache.removeAll() == 1)
    }
}
