import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStore

/// `count` pseudo-random bytes.
private func bytes(_ count: Int, seed: UInt64) -> Data {
    var state = seed
    return Data(
        (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        })
}

/// `data` as a stream of chunks of varying sizes (1 byte to 300 KiB).
private func stream(_ data: Data, failingAfter limit: Int? = nil) -> AsyncThrowingStream<Data, any Error> {
    AsyncThrowingStream { continuation in
        var offset = 0
        var size = 1
        while offset < data.count {
            if let limit, offset >= limit {
                continuation.finish(throwing: CocoaError(.fileReadUnknown))
                return
            }
            let end = min(data.count, offset + size)
            continuation.yield(data.subdata(in: offset..<end))
            offset = end
            size = size * 7 % 300_001 + 1
        }
        continuation.finish()
    }
}

/// Every chunk of `key`'s value, and the error that ended the sequence, if one did.
private func read(_ store: BlobStore, _ key: StoreKey, chunkSize: Int) async throws -> (
    chunks: [Data], error: (any Error)?
) {
    let sequence = try #require(try await store.chunks(for: key, chunkSize: chunkSize))
    var chunks: [Data] = []
    do {
        for try await chunk in sequence { chunks.append(chunk) }
        return (chunks, nil)
    } catch {
        return (chunks, error)
    }
}

/// The files in `tmp/` of the store at `path`.
private func temporaryFiles(_ path: String) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: path + "/tmp")) ?? []
}

@Suite("Values streamed as AsyncSequences of chunks, verified as they stream")
struct StreamingTests {
    @Test(arguments: [0, 100, 70_000, (5 << 20) + 17])
    func aStreamedValueRoundTrips(size: Int) async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try BlobStore(at: directory.child("s"), configuration: fast)
        defer { try? store.close() }
        let value = bytes(size, seed: UInt64(size))
        let digest = try await store.put(streaming: stream(value), for: "k", metadata: Data("m"))
        #expect(digest == SHA256Hasher.hash(value))
        #expect(try await store.entry(for: "k")?.value == value)
        #expect(try await store.info(for: "k")?.metadata == Data("m"))

        let (chunks, error) = try await read(store, "k", chunkSize: 64 << 10)
        #expect(error == nil)
        #expect(chunks.reduce(into: Data()) { $0.append($1) } == value)
        #expect(chunks.allSatisfy { $0.count <= 64 << 10 })
        #expect(chunks.count == (size + (64 << 10) - 1) / (64 << 10))
        #expect(temporaryFiles(directory.child("s")).isEmpty)
    }

    @Test func chunksOfByteArraysAreAcceptedToo() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try BlobStore(at: directory.child("s"), configuration: fast)
        defer { try? store.close() }
        let pieces: [[UInt8]] = [Array(repeating: 1, count: 3 << 20), [2, 3], Array(repeating: 4, count: 1 << 20)]
        let source = AsyncStream<[UInt8]> { continuation in
            for piece in pieces { continuation.yield(piece) }
            continuation.finish()
        }
        try await store.put(streaming: source, for: "k")
        #expect(try await store.value(for: "k") == Data(pieces.joined()))
    }

    @Test func aFailingOrCancelledSourceStoresNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try BlobStore(at: directory.child("s"), configuration: fast)
        defer { try? store.close() }
        let value = bytes(4 << 20, seed: 1)
        await #expect(throws: CocoaError.self) {
            try await store.put(streaming: stream(value, failingAfter: 3 << 20), for: "k")
        }
        #expect(try await store.value(for: "k") == nil)

        // Made as they are read (nothing buffered), up to 10,000 chunks of 64 KiB: a put that
        // ignored the cancellation would store all 640 MiB and fail below.
        let made = Atomic(0)
        let endless = AsyncStream<Data>(unfolding: {
            made.add(1, ordering: .relaxed).newValue <= 10_000 ? Data(count: 64 << 10) : nil
        })
        let put = Task { try await store.put(streaming: endless, for: "k") }
        try await Task.sleep(for: .milliseconds(20))
        put.cancel()
        await #expect(throws: CancellationError.self) { try await put.value }
        #expect(try await store.value(for: "k") == nil)
        #expect(temporaryFiles(directory.child("s")).isEmpty, "the partial value is removed")
    }

    @Test func aWrongDigestOrTooLargeAValueStoresNothing() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        var configuration = fast
        configuration.limits = EvictionLimits(capacity: 3 << 20)
        let store = try BlobStore(at: directory.child("s"), configuration: configuration)
        defer { try? store.close() }
        let value = bytes(2 << 20, seed: 2)
        let mismatch = try await #require(throws: BlobStoreError.self) {
            try await store.put(streaming: stream(value), for: "k", expecting: SHA256Hasher.hash(Data("other")))
        }
        #expect(mismatch.code == .digestMismatch)
        let tooLarge = try await #require(throws: BlobStoreError.self) {
            try await store.put(streaming: stream(bytes(5 << 20, seed: 3)), for: "big")
        }
        #expect(tooLarge.code == .tooLarge)
        #expect(try await store.value(for: "k") == nil)
        #expect(try await store.value(for: "big") == nil)
        #expect(temporaryFiles(directory.child("s")).isEmpty)
        try await store.put(streaming: stream(value), for: "k", expecting: SHA256Hasher.hash(value))
        #expect(try await store.value(for: "k") == value)
    }

    @Test func aDamagedValueThrowsCorruptInPlaceOfItsLastChunk() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.child("s")
        let store = try BlobStore(at: path, configuration: fast)
        defer { try? store.close() }
        let value = bytes(3 << 20, seed: 4)
        let digest = try await store.put(value, for: "k")
        let file = path + "/blobs/sha256/" + String(digest.hex.prefix(2)) + "/" + digest.hex
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        flipBit(file, at: 100, bit: 3)

        let (chunks, error) = try await read(store, "k", chunkSize: 1 << 20)
        #expect(chunks.count == 2, "the last chunk is not returned")
        #expect((error as? BlobStoreError)?.code == .corrupt)
        #expect(try await store.value(for: "k") == nil, "the damaged entry is dropped")
        #expect(try await store.chunks(for: "k") == nil)
    }
}
