import BlobStore
import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStoreRemote

/// The remote tier against real redis-server processes started by each test.
@Suite("Redis remote")
struct RedisRemoteTests {
    private func backend(_ servers: ServerProcess..., password: String? = nil) throws -> RedisBackend {
        try RedisBackend(
            shards: servers.map { RedisServer(host: "127.0.0.1", port: $0.port, password: password) },
            timeouts: testTimeouts)
    }

    /// Runs `body` with a new redis-server, a directory for stores, and a backend on it.
    private func withRedis(_ body: (ServerProcess, TemporaryDirectory, RedisBackend) throws -> Void) throws {
        let redis = try TestServers.startRedis()
        defer { redis.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        try body(redis, directory, try backend(redis))
    }

    @Test func roundTripThroughRedisAndSecondStoreGetsARemoteHit() throws {
        try withRedis { redis, directory, remote in
            let first = TieredStore(local: try directory.store("a"), remote: remote)
            let value = sampleBytes(100_000, seed: 1)
            let digest = try first.put(value, for: "k", metadata: Data("m".utf8))
            #expect(first.stats.uploads == 1)
            #expect(first.stats.errors == 0)

            let secondLocal = try directory.store("b")
            let second = TieredStore(local: secondLocal, remote: remote)
            #expect(try secondLocal.value(for: "k") == nil)
            #expect(try second.value(for: "k") == value)
            #expect(second.stats.hits == 1)
            #expect(second.stats.bytesDown >= UInt64(value.count))
            // Stored locally with its metadata: the next read makes no remote traffic.
            let info = try #require(try secondLocal.info(for: "k"))
            #expect(info.digest == digest)
            #expect(info.metadata == Data("m".utf8))
            #expect(try second.value(for: "k") == value)
            #expect(second.stats.hits == 1)
            #expect(second.stats.misses == 0)

            let raw = try rawRedis(redis)
            #expect(try raw.run("EXISTS", "blobstore:cas:\(digest.hex)") == .integer(1))
            let keyDigest = SHA256Hasher.hash(Array("k".utf8))
            #expect(try raw.run("EXISTS", "blobstore:ac:\(keyDigest.hex)") == .integer(1))
        }
    }

    @Test func doubleMissProducesStoresAndUploads() throws {
        try withRedis { _, directory, remote in
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            var produced = 0
            let value = try store.value(for: "k") {
                produced += 1
                return Data("made".utf8)
            }
            #expect(value == Data("made".utf8))
            #expect(produced == 1)
            #expect(store.stats.misses == 1)
            #expect(store.stats.uploads == 1)
            #expect(try store.value(for: "k") { Data("other".utf8) } == Data("made".utf8))
            let other = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try other.value(for: "k") == Data("made".utf8))
        }
    }

    @Test func uploadOfExistingContentIsSkippedAfterExists() throws {
        try withRedis { redis, directory, remote in
            let value = sampleBytes(50_000, seed: 2)
            _ = try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "one")
            #expect(try redis.redisCalls("SET") == 2)  // the blob and the record
            let store = TieredStore(local: try directory.store("b"), remote: remote)
            try store.put(value, for: "two")
            #expect(try redis.redisCalls("SET") == 3, "only the record")
            #expect(store.stats.skippedUploads == 1)
            #expect(store.stats.uploads == 0)
            #expect(store.stats.bytesUp < 1_000)  // the record only
            let fresh = TieredStore(local: try directory.store("c"), remote: remote)
            #expect(try fresh.value(for: "two") == value)
        }
    }

    @Test func tamperedRemoteBlobIsRejectedAndNotStoredLocally() throws {
        try withRedis { redis, directory, remote in
            let value = sampleBytes(10_000, seed: 3)
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "k")
            var poisoned = value
            poisoned[0] ^= 0xff
            #expect(
                try rawRedis(redis).run([Data("SET".utf8), Data("blobstore:cas:\(digest.hex)".utf8), poisoned])
                    == .simple("OK"))

            let localB = try directory.store("b")
            let victim = TieredStore(local: localB, remote: remote)
            #expect(try victim.value(for: "k") == nil)
            #expect(victim.stats.verificationFailures == 1)
            #expect(victim.stats.misses == 1)
            #expect(victim.stats.hits == 0)
            #expect(try localB.contains("k") == false)
            #expect(try localB.blob(digest) == nil)

            // The victim produces the value itself: its upload replaces the poisoned blob, though
            // the remote "has" it.
            #expect(try victim.value(for: "k") { value } == value)
            #expect(victim.stats.uploads == 1)
            #expect(victim.stats.skippedUploads == 0)
            let third = TieredStore(local: try directory.store("c"), remote: remote)
            #expect(try third.value(for: "k") == value)
            #expect(third.stats.verificationFailures == 0)
        }
    }

    @Test func remoteBlobLongerThanItsRecordIsRejectedWithoutACoolDown() throws {
        try withRedis { redis, directory, remote in
            let value = sampleBytes(1_000, seed: 4)
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "k")
            let longer = value + sampleBytes(5_000, seed: 5)
            #expect(
                try rawRedis(redis).run([Data("SET".utf8), Data("blobstore:cas:\(digest.hex)".utf8), longer])
                    == .simple("OK"))

            let victim = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try victim.value(for: "k") == nil)
            #expect(victim.stats.verificationFailures == 1)
            #expect(victim.stats.errors == 0)
            #expect(!victim.isCoolingDown)
        }
    }

    @Test func valueOverTheBackendsLimitStaysLocalWithoutACoolDown() throws {
        try withRedis { redis, directory, remote in
            let remote = try RedisBackend(
                shards: [RedisServer(host: "127.0.0.1", port: redis.port)], maximumValueSize: 1 << 10,
                timeouts: testTimeouts)
            let store = TieredStore(local: try directory.store("a"), remote: remote)  // configured for 64 MiB
            try store.put(sampleBytes(10_000, seed: 6), for: "large")
            #expect(store.stats.errors == 0)
            #expect(store.stats.uploads == 0)
            #expect(!store.isCoolingDown)
            try store.put(Data("small".utf8), for: "small")
            #expect(store.stats.uploads == 1)
        }
    }

    @Test func serverKilledMidRunLocalOperationsContinueAndErrorIsCounted() throws {
        try withRedis { redis, directory, remote in
            let local = try directory.store("a")
            let store = TieredStore(local: local, remote: remote)
            try store.put(Data("before".utf8), for: "before")
            #expect(store.stats.uploads == 1)

            redis.kill()
            let clock = ContinuousClock()
            let elapsed = try clock.measure {
                try store.put(Data("after".utf8), for: "after")
            }
            #expect(elapsed < .seconds(2))
            #expect(store.stats.errors == 1)
            #expect(store.isCoolingDown)
            #expect(try local.value(for: "after") == Data("after".utf8))
            // During the cool-down the remote is not asked: a miss is immediate and no new error.
            var missed: Data?
            let missTime = try clock.measure { missed = try store.value(for: "absent") }
            #expect(missed == nil)
            #expect(missTime < .milliseconds(500))
            #expect(store.stats.errors == 1)
            #expect(store.stats.coolDownSkips == 1)
            #expect(try store.value(for: "before") == Data("before".utf8))
        }
    }

    @Test func coolDownEndsAndTheRemoteIsUsedAgain() throws {
        try withRedis { _, directory, remote in
            let unreachable = try RedisBackend(
                server: RedisServer(host: "127.0.0.1", port: LocalPorts.free()), timeouts: testTimeouts)
            let configuration = RemoteConfiguration(coolDown: .milliseconds(200))
            let store = TieredStore(local: try directory.store("a"), remote: unreachable, configuration: configuration)
            #expect(try store.value(for: "k") == nil)
            #expect(store.stats.errors == 1)
            #expect(try store.value(for: "k") == nil)
            #expect(store.stats.errors == 1)
            #expect(store.stats.coolDownSkips == 1)
            Thread.sleep(forTimeInterval: 0.3)
            #expect(try store.value(for: "k") == nil)
            #expect(store.stats.errors == 2)

            let working = TieredStore(
                local: try directory.store("b"), remote: remote, configuration: configuration)
            try working.put(Data("v".utf8), for: "k")
            #expect(working.stats.errors == 0, "\(String(describing: working.lastError))")
        }
    }

    @Test func maxmemoryEvictionLeavesDanglingRecordsThatAreMisses() throws {
        let redis = try TestServers.startRedis(maxmemory: "3mb")
        defer { redis.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try backend(redis)
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        var values: [String: Data] = [:]
        for index in 0..<40 {
            let value = sampleBytes(100_000, seed: UInt8(index))
            values["k\(index)"] = value
            try writer.put(value, for: StoreKey("k\(index)"))
        }
        #expect(writer.stats.errors == 0, "\(String(describing: writer.lastError))")
        // Touch every record, so that the blobs are the least recently used, then push more data.
        // Redis' LRU clock ticks once a second: wait two ticks, or the touch may change nothing
        // (one tick was not always enough on a loaded machine).
        usleep(2_100_000)
        let raw = try rawRedis(redis)
        for index in 0..<40 {
            _ = try raw.run("GET", "blobstore:ac:\(SHA256Hasher.hash(Array("k\(index)".utf8)).hex)")
        }
        for index in 0..<20 {
            _ = try raw.run([Data("SET".utf8), Data("filler\(index)".utf8), sampleBytes(100_000, seed: 99)])
        }
        let reader = TieredStore(local: try directory.store("b"), remote: remote)
        var hits = 0
        for index in 0..<40 {
            if let value = try reader.value(for: StoreKey("k\(index)")) {
                #expect(value == values["k\(index)"])
                hits += 1
            }
        }
        #expect(reader.stats.danglingRecords > 0, "\(reader.stats)")
        #expect(reader.stats.hits == hits)
        #expect(reader.stats.misses == 40 - hits)
        #expect(reader.stats.errors == 0)
        #expect(reader.stats.verificationFailures == 0)
    }

    @Test func twoShardsEachHoldPartOfTheKeys() throws {
        let first = try TestServers.startRedis()
        defer { first.stop() }
        let second = try TestServers.startRedis()
        defer { second.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let remote = try backend(first, second)
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        for index in 0..<40 {
            try writer.put(sampleBytes(1_000, seed: UInt8(index)), for: StoreKey("k\(index)"))
        }
        let firstKeys = try rawRedis(first).run("DBSIZE")
        let secondKeys = try rawRedis(second).run("DBSIZE")
        guard case .integer(let a) = firstKeys, case .integer(let b) = secondKeys else {
            Issue.record("DBSIZE did not answer integers")
            return
        }
        #expect(a > 0)
        #expect(b > 0)
        #expect(a + b == 80)
        // Each object is on the shard rendezvous hashing picks, so a second client finds them all.
        let reader = TieredStore(local: try directory.store("b"), remote: try backend(first, second))
        for index in 0..<40 {
            #expect(try reader.value(for: StoreKey("k\(index)")) == sampleBytes(1_000, seed: UInt8(index)))
        }
        #expect(reader.stats.hits == 40)
    }

    @Test func authenticationWithPassword() throws {
        let redis = try TestServers.startRedis(password: "s3cret")
        defer { redis.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let url = "redis://s3cret@127.0.0.1:\(redis.port)"
        let remote = try RemoteURL.backend(url, timeouts: testTimeouts)
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        try store.put(Data("v".utf8), for: "k")
        #expect(store.stats.errors == 0, "\(String(describing: store.lastError))")
        #expect(store.stats.uploads == 1)

        let wrong = try RemoteURL.backend("redis://default:wrong@127.0.0.1:\(redis.port)", timeouts: testTimeouts)
        let refused = TieredStore(local: try directory.store("b"), remote: wrong)
        #expect(try refused.value(for: "k") == nil)
        #expect(refused.stats.errors == 1)
        #expect(refused.lastError?.message.contains("Check the user and password") == true)
    }

    @Test func readOnlyNeverWrites() throws {
        try withRedis { redis, directory, remote in
            let store = TieredStore(
                local: try directory.store("a"), remote: remote,
                configuration: RemoteConfiguration(readOnly: true))
            try store.put(Data("v".utf8), for: "k")
            #expect(store.stats.uploads == 0)
            #expect(try rawRedis(redis).run("DBSIZE") == .integer(0))
        }
    }

    @Test func remoteOnlyKeepsNoLocalCopy() throws {
        try withRedis { _, directory, remote in
            let local = try directory.store("a")
            let store = TieredStore(
                local: local, remote: remote, configuration: RemoteConfiguration(remoteOnly: true))
            try store.put(Data("v".utf8), for: "k")
            #expect(try local.contains("k") == false)
            #expect(try store.value(for: "k") == Data("v".utf8))
            #expect(try local.contains("k") == false)
            #expect(try store.contains("k"))
            #expect(store.stats.hits == 1)
        }
    }

    @Test func concurrentOperationsShareThePooledConnections() throws {
        try withRedis { _, directory, remote in
            try checkConcurrentRoundTrip(remote, count: 64, in: directory)
        }
    }

    @Test func reusedConnectionToARestartedServerIsRetriedOnce() throws {
        try withRedis { redis, directory, remote in
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            try store.put(Data("one".utf8), for: "one")
            // The server drops every client (as a restart does); the idle pooled connection is stale.
            #expect(try rawRedis(redis).run("CLIENT", "KILL", "TYPE", "normal") != .integer(0))
            try store.put(Data("two".utf8), for: "two")
            #expect(store.stats.errors == 0, "\(String(describing: store.lastError))")
            #expect(store.stats.uploads == 2)
        }
    }

    @Test func serverThatNeverAnswersTimesOutWithinTheOperationTimeout() throws {
        try withRedis { redis, directory, remote in
            let timeouts = RemoteTimeouts(connect: .milliseconds(100), operation: .milliseconds(300))
            let remote = try RedisBackend(
                server: RedisServer(host: "127.0.0.1", port: redis.port), timeouts: timeouts)
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            _ = try rawRedis(redis).run("CLIENT", "PAUSE", "3000", "ALL")
            var value: Data?
            let elapsed = try ContinuousClock().measure { value = try store.value(for: "k") }
            #expect(value == nil)
            #expect(elapsed >= .milliseconds(250))
            #expect(elapsed < .seconds(1))
            #expect(store.stats.errors == 1)
            #expect(store.lastError?.errno == ETIMEDOUT)
        }
    }

    @Test func largeValueThroughRedisAndTimeToLive() throws {
        try withRedis { redis, directory, remote in
            let remote = try RedisBackend(
                shards: [RedisServer(host: "127.0.0.1", port: redis.port)], prefix: "fleet", timeToLive: .seconds(600),
                timeouts: testTimeouts)
            let value = sampleBytes(6 << 20, seed: 8)
            let digest = try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "big")
            let reader = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try reader.value(for: "big") == value)
            guard case .integer(let ttl) = try rawRedis(redis).run("TTL", "fleet:cas:\(digest.hex)") else {
                Issue.record("TTL did not answer an integer")
                return
            }
            #expect((590...600).contains(ttl))
        }
    }

    @Test func authenticationAsAnACLUser() throws {
        try withRedis { redis, directory, remote in
            let raw = try rawRedis(redis)
            #expect(try raw.run("ACL", "SETUSER", "builder", "on", ">pw", "~blobstore:*", "+@all") == .simple("OK"))
            #expect(try raw.run("ACL", "SETUSER", "default", "off") == .simple("OK"))
            let remote = try RemoteURL.backend("redis://builder:pw@127.0.0.1:\(redis.port)/0", timeouts: testTimeouts)
            let store = TieredStore(local: try directory.store("a"), remote: remote)
            try store.put(Data("v".utf8), for: "k")
            #expect(store.stats.uploads == 1, "\(String(describing: store.lastError))")
            let reader = TieredStore(local: try directory.store("b"), remote: remote)
            #expect(try reader.value(for: "k") == Data("v".utf8))
            let anonymous = TieredStore(
                local: try directory.store("c"),
                remote: try RemoteURL.backend("redis://127.0.0.1:\(redis.port)", timeouts: testTimeouts))
            #expect(try anonymous.value(for: "k") == nil)
            #expect(anonymous.stats.errors == 1)
        }
    }

    @Test func remoteHitLargerThanTheLocalCapacityIsReturnedWithoutALocalCopy() throws {
        try withRedis { _, directory, remote in
            let value = sampleBytes(200_000, seed: 10)
            try TieredStore(local: try directory.store("a"), remote: remote).put(value, for: "k")
            var configuration = BlobStore.Configuration()
            configuration.durability = .none
            configuration.limits = EvictionLimits(capacity: 100_000)
            let small = try BlobStore(at: directory.child("b"), configuration: configuration)
            let reader = TieredStore(local: small, remote: remote)
            #expect(try reader.value(for: "k") == value)
            #expect(try small.contains("k") == false)
            #expect(reader.stats.hits == 1)
        }
    }

    @Test func removeDeletesTheRemoteRecord() throws {
        try withRedis { _, directory, remote in
            try checkRemoveDeletesTheRecord(remote, in: directory)
        }
    }
}
