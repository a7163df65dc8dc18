import BlobStore
import BlobStoreHTTP
import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreRemote

@Suite("The tiered store as a BlobStorage")
struct TieredStorageTests {
    @Test func itKeepsTheStorageContract() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = InMemoryBackend()
        let storage: any BlobStorage = TieredStore(local: try directory.store("a"), remote: remote)
        try storage.put(Data("v1".utf8), for: "k", metadata: Data("m".utf8), expires: nil, placement: .memoryAndDisk)
        let entry = try #require(try storage.entry(for: "k"))
        #expect(entry.value == Data("v1".utf8) && entry.info.metadata == Data("m".utf8) && entry.tier == .disk)
        #expect(try storage.update("k", metadata: Data("m2".utf8), expires: nil))
        #expect(try storage.entry(for: "k")?.info.metadata == Data("m2".utf8))

        try storage.put(Data("v2".utf8), for: "k", metadata: Data(), expires: nil, placement: .memoryOnly)
        #expect(try storage.info(for: "k") == nil && storage.value(for: "k") == nil, "nothing kept, nothing older")
        #expect(remote.recordCount == 0)

        try storage.put(Data("x".utf8), for: "x")
        try storage.put(Data("y".utf8), for: "y")
        #expect(remote.recordCount == 2)
        #expect(try storage.remove("x"))
        #expect(try storage.value(for: "x") == nil)
        #expect(try storage.removeAll() == 1)
        #expect(try storage.value(for: "y") == nil, "neither locally nor from the remote")
        #expect(remote.recordCount == 0)
    }

    @Test func aRemoteHitIsAnEntryOfTheRemoteTierAndUpdatesReachTheRemote() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = InMemoryBackend()
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        try writer.put(Data("shared".utf8), for: "k", metadata: Data("m".utf8))
        #expect(try writer.update("k", metadata: Data("m2".utf8), expires: nil))
        #expect(try reader.info(for: "k")?.metadata == Data("m2".utf8), "read from the remote's record")
        let hit = try #require(try reader.entry(for: "k"))
        #expect(hit.tier == .remote && hit.value == Data("shared".utf8) && hit.info.metadata == Data("m2".utf8))
        #expect(try reader.entry(for: "k")?.tier == .disk, "stored locally after the remote hit")
        #expect(reader.stats.hits == 1 && reader.stats.misses == 0)
    }

    @Test func getOrComputeAsksTheRemoteOnceOnADoubleMiss() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = TieredStore(local: try directory.store("a"), remote: InMemoryBackend())
        let value = try store.value(for: "k", orInsert: { Data("made".utf8) })
        #expect(value == Data("made".utf8))
        #expect(store.stats.misses == 1 && store.stats.uploads == 1)
    }

    @Test func aCancelledRemoteReadThrowsCancellationErrorNotARemoteError() async throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = InMemoryBackend()
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        remote.blockRecords()
        let watchdog = Task.detached {
            try? await Task.sleep(for: .seconds(20))
            remote.releaseRecords()
        }
        let read = Task { try await store.entry(for: "absent") }
        try await Task.sleep(for: .milliseconds(50))
        read.cancel()
        let outcome = await read.result
        remote.releaseRecords()
        watchdog.cancel()
        #expect(throws: CancellationError.self) { try outcome.get() }
        #expect(store.stats.errors == 0 && store.lastError == nil)

        let backendRead = Task { try await remote.record(SHA256Hasher.hash(Data("k".utf8)), maximumSize: 100) }
        remote.blockRecords()
        backendRead.cancel()
        remote.releaseRecords()
        _ = await backendRead.result
    }

    @Test func theHTTPCacheRunsOnTheTieredStore() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = InMemoryBackend()
        let first = HTTPCache(store: TieredStore(local: try directory.store("a"), remote: remote))
        let url = "https://example.com/a"
        let response = StoredResponse(
            url: url, status: 200, headers: ["Cache-Control": "max-age=3600"], vary: nil, requestTime: Date(),
            responseTime: Date())
        #expect(try first.store(response, body: Data("body".utf8), requestHeaders: HTTPHeaders()) == .memoryAndDisk)
        let second = HTTPCache(store: TieredStore(local: try directory.store("b"), remote: remote))
        let found = try #require(
            try second.storedResponse(for: URL(string: url)!, requestHeaders: HTTPHeaders()), "from the remote")
        #expect(found.body == Data("body".utf8) && found.response.status == 200)
    }
}
