import BlobStore
import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStoreRemote

/// The remote tier against real nginx processes (WebDAV module) started by each test.
@Suite("HTTP remote")
struct HTTPRemoteTests {
    private func backend(_ server: ServerProcess, path: String = "/cache") throws -> HTTPCacheBackend {
        try HTTPCacheBackend(baseURL: URL(string: "http://127.0.0.1:\(server.port)\(path)")!, timeouts: testTimeouts)
    }

    /// Runs `body` with a new nginx, a directory for stores, and a backend on its `/cache`.
    private func withNginx(_ body: (ServerProcess, TemporaryDirectory, HTTPCacheBackend) throws -> Void) throws {
        let nginx = try TestServers.startNginx()
        defer { nginx.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        try body(nginx, directory, try backend(nginx))
    }

    @Test func roundTripThroughNginxAndSecondStoreGetsARemoteHit() throws {
        try withNginx { nginx, directory, remote in
            let first = TieredStore(local: try directory.store("a"), remote: remote)
            let value = sampleBytes(300_000, seed: 4)
            let expires = Date(timeIntervalSinceNow: 3600)
            let digest = try first.put(
                value, for: "https://example.com/x", metadata: Data("etag".utf8), expires: expires)
            #expect(first.stats.uploads == 1, "\(String(describing: first.lastError))")
            #expect(first.stats.errors == 0)
            // The layout Bazel's protocol names, on the server's disk.
            let root = nginx.directory + "/root/cache"
            #expect(FileManager.default.contents(atPath: root + "/cas/" + digest.hex) == value)
            let keyDigest = SHA256Hasher.hash(Array("https://example.com/x".utf8))
            let record = try #require(FileManager.default.contents(atPath: root + "/ac/" + keyDigest.hex))
            #expect(RemoteRecord.decode(record)?.digest == digest)

            let secondLocal = try directory.store("b")
            let second = TieredStore(local: secondLocal, remote: remote)
            #expect(try second.value(for: "https://example.com/x") == value)
            #expect(second.stats.hits == 1)
            let info = try #require(try secondLocal.info(for: "https://example.com/x"))
            #expect(info.metadata == Data("etag".utf8))
            #expect(abs((info.expires ?? .distantPast).timeIntervalSince(expires)) < 0.01)
            #expect(try second.contains("https://example.com/x"))
        }
    }

    @Test func missingKeyIsAMissNotAnError() throws {
        try withNginx { _, directory, remote in
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            #expect(try store.value(for: "absent") == nil)
            #expect(try store.contains("absent") == false)
            #expect(store.stats.misses == 1)
            #expect(store.stats.errors == 0)
        }
    }

    @Test func uploadOfExistingContentIsSkippedAfterHead() throws {
        try withNginx { nginx, directory, remote in
            let value = sampleBytes(200_000, seed: 5)
            try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "one")
            let store = TieredStore(local: try directory.store("b"), remote: remote)
            try store.put(value, for: "two")
            #expect(store.stats.skippedUploads == 1)
            #expect(store.stats.uploads == 0)
            #expect(store.stats.bytesUp < 1_000)
            let blobPuts = nginx.loggedRequests().filter { $0.hasPrefix("PUT ") && $0.contains("/cas/") }
            #expect(blobPuts.count == 1, "only the first store sent the blob: \(blobPuts)")
            #expect(try TieredStore(local: try directory.store("c"), remote: remote).value(for: "two") == value)
        }
    }

    @Test func tamperedRemoteBlobIsRejected() throws {
        try withNginx { nginx, directory, remote in
            let value = sampleBytes(20_000, seed: 6)
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "k")
            let path = nginx.directory + "/root/cache/cas/" + digest.hex
            var poisoned = value
            poisoned[19_999] ^= 1
            try poisoned.write(to: URL(fileURLWithPath: path))

            let localB = try directory.store("b")
            let victim = TieredStore(local: localB, remote: remote)
            #expect(try victim.value(for: "k") == nil)
            #expect(victim.stats.verificationFailures == 1)
            #expect(victim.stats.misses == 1)
            #expect(try localB.contains("k") == false)
            #expect(try localB.blob(digest) == nil)

            // A truncated blob (wrong size) is rejected too.
            try value.prefix(100).write(to: URL(fileURLWithPath: path))
            #expect(try victim.value(for: "k") == nil)
            #expect(victim.stats.verificationFailures == 2)
        }
    }

    @Test func recordOfAnUnknownVersionOrGarbageIsAMiss() throws {
        try withNginx { nginx, directory, remote in
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(Data("v".utf8), for: "k")
            let recordPath = nginx.directory + "/root/cache/ac/" + SHA256Hasher.hash(Array("k".utf8)).hex
            let future = #"{"version":2,"digest":"\#(digest.hex)","size":1,"created":0,"metadata":""}"#
            try Data(future.utf8).write(to: URL(fileURLWithPath: recordPath))
            let reader = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try reader.value(for: "k") == nil)
            try Data("not json".utf8).write(to: URL(fileURLWithPath: recordPath))
            #expect(try reader.value(for: "k") == nil)
            #expect(reader.stats.misses == 2)
            #expect(reader.stats.errors == 0)
        }
    }

    @Test func recordPointingAtAMissingBlobIsAMiss() throws {
        try withNginx { nginx, directory, remote in
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(Data("v".utf8), for: "k")
            try FileManager.default.removeItem(atPath: nginx.directory + "/root/cache/cas/" + digest.hex)
            let reader = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try reader.value(for: "k") == nil)
            #expect(try reader.contains("k") == false)
            #expect(reader.stats.danglingRecords == 1)
            #expect(reader.stats.misses == 1)
        }
    }

    @Test func serverKilledMidRunLocalOperationsContinueAndErrorIsCounted() throws {
        try withNginx { nginx, directory, remote in
            let local = try directory.store("a")
            let store = TieredStore(local: local, remote: remote)
            try store.put(Data("before".utf8), for: "before")
            #expect(store.stats.uploads == 1)
            nginx.kill()
            let elapsed = try ContinuousClock().measure {
                try store.put(Data("after".utf8), for: "after")
            }
            #expect(elapsed < .seconds(2))
            #expect(store.stats.errors == 1)
            #expect(try local.value(for: "after") == Data("after".utf8))
            #expect(try store.value(for: "before") == Data("before".utf8))
        }
    }

    @Test func serverThatNeverAnswersTimesOut() throws {
        // A listening socket that accepts connections (the kernel does) but never replies.
        let (fd, port) = LocalPorts.listening()
        defer { close(fd) }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let timeouts = RemoteTimeouts(connect: .milliseconds(100), operation: .milliseconds(300))
        let remote = try HTTPCacheBackend(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeouts: timeouts)
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        var value: Data?
        let elapsed = try ContinuousClock().measure { value = try store.value(for: "k") }
        #expect(value == nil)
        #expect(elapsed >= .milliseconds(250))
        #expect(elapsed < .seconds(1))
        #expect(store.stats.errors == 1)
        #expect(store.lastError?.errno == ETIMEDOUT)
    }

    @Test func concurrentFailuresCountOneErrorAndArmOneCoolDown() throws {
        let (fd, port) = LocalPorts.listening()  // accepts, never answers
        defer { close(fd) }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let timeouts = RemoteTimeouts(connect: .milliseconds(100), operation: .milliseconds(300))
        let remote = try HTTPCacheBackend(baseURL: URL(string: "http://127.0.0.1:\(port)")!, timeouts: timeouts)
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        DispatchQueue.concurrentPerform(iterations: 4) { index in _ = try? store.value(for: StoreKey("k\(index)")) }
        #expect(store.stats.errors == 1)
        #expect(store.stats.misses == 4)
        #expect(store.isCoolingDown)
    }

    @Test func basicAuthenticationIsSent() throws {
        let nginx = try TestServers.startNginx(htpasswd: "alice:{PLAIN}pw\n")
        defer { nginx.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }

        // Without credentials nginx answers 401: the check below can fail.
        let anonymous = TieredStore(
            local: try directory.store("a"),
            remote: try RemoteURL.backend("http://127.0.0.1:\(nginx.port)/c", timeouts: testTimeouts))
        try anonymous.put(Data("v".utf8), for: "k")
        #expect(anonymous.stats.errors == 1)
        #expect(anonymous.lastError?.message.contains("HTTP 401") == true)

        let remote = try RemoteURL.backend("http://alice:pw@127.0.0.1:\(nginx.port)/c", timeouts: testTimeouts)
        let http = try #require(remote as? HTTPCacheBackend)
        #expect(http.authentication == .basic(user: "alice", password: "pw"))
        #expect(http.name == "http://127.0.0.1:\(nginx.port)/c")
        let store = TieredStore(local: try directory.store("b"), remote: remote)
        try store.put(Data("v".utf8), for: "k")
        #expect(store.stats.errors == 0, "\(String(describing: store.lastError))")
        #expect(store.stats.uploads == 1)
        #expect(try TieredStore(local: try directory.store("c"), remote: remote).value(for: "k") == Data("v".utf8))
    }

    @Test func httpsToAPlainHTTPServerFailsTheHandshakeAsACountedError() throws {
        // nginx speaks plain HTTP on this port: the TLS handshake fails.
        try withNginx { nginx, directory, remote in
            let remote = try HTTPCacheBackend(
                baseURL: URL(string: "https://127.0.0.1:\(nginx.port)/cache")!, timeouts: testTimeouts)
            #expect(remote.name == "https://127.0.0.1:\(nginx.port)/cache")
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            var elapsed = Duration.zero
            elapsed = try ContinuousClock().measure { try store.put(Data("v".utf8), for: "k") }
            #expect(elapsed < .seconds(3))
            #expect(store.stats.errors == 1)
            #expect(store.stats.uploads == 0)
            #expect(try store.value(for: "k") == Data("v".utf8))
        }
    }

    @Test func concurrentPutsAndGetsShareTheRemote() throws {
        try withNginx { _, directory, remote in
            try checkConcurrentRoundTrip(remote, count: 32, in: directory)
        }
    }

    @Test func largeValueAndAsyncVariants() async throws {
        let nginx = try TestServers.startNginx()
        defer { nginx.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try backend(nginx)
        let value = sampleBytes(6 << 20, seed: 7)
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        try await writer.put(value, for: "big")
        #expect(writer.stats.uploads == 1)
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        #expect(try await reader.contains("big"))
        #expect(try await reader.value(for: "big") == value)
        let produced = try await reader.value(for: "new") { () async -> Data in Data("made".utf8) }
        #expect(produced == Data("made".utf8))
        #expect(reader.stats.hits == 1)
        #expect(reader.stats.misses == 1)
        #expect(reader.stats.uploads == 1)

        // Over the configured maximum, a value stays local: neither uploaded nor downloaded.
        let small = RemoteConfiguration(maximumValueSize: 1 << 20)
        let limited = TieredStore(local: try directory.store("c"), remote: remote, configuration: small)
        try await limited.put(value, for: "big2")
        #expect(limited.stats.uploads == 0)
        #expect(try await limited.value(for: "big") == nil)
        #expect(limited.stats.misses == 1)
    }

    @Test func removeDeletesTheRemoteRecord() throws {
        try withNginx { _, directory, remote in
            try checkRemoveDeletesTheRecord(remote, in: directory)
        }
    }
}
