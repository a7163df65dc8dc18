import BlobStore
import BlobStoreCLI
import BlobStoreTestKit
import Foundation
import Synchronization
import Testing

@testable import BlobStoreRemote

/// The remote tier against a real Redis Cluster (three masters, three replicas), one for the
/// whole suite: round trips, keys on every master, the ACL user on every node, an `-ASK` and a
/// `-MOVED` during a migration, a resharding while clients run, and a master killed mid-run.
/// The tests run one at a time: some move slots or kill a node, and each leaves the cluster
/// healthy (every slot served, though not where it was).
@Suite("Redis Cluster", .serialized, .redisCluster)
struct RedisClusterTests {
    private var cluster: TestCluster {
        get throws { try #require(TestCluster.current) }
    }

    /// A key prefix of its own for each test.
    private func prefix() -> String { "t" + UUID().uuidString.prefix(8).lowercased() }

    @Test func roundTripFromTwoStoresThroughTheURLForm() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        // The form --remote and $BLOBSTORE_REMOTE take, with the ACL user of every node.
        let remote = try RemoteURL.backend(cluster.url, timeouts: testTimeouts)
        #expect(
            remote.name == "redis+cluster://" + cluster.ports.prefix(3).map { "127.0.0.1:\($0)" }.joined(separator: ",")
        )
        let writer = TieredStore(local: try directory.store("a"), remote: remote)
        var bytes = 0
        for index in 0..<60 {
            let value = ClusterWorkload.value(index)
            bytes += value.count
            try writer.put(value, for: ClusterWorkload.key(index), metadata: Data("m\(index)".utf8))
        }
        #expect(writer.stats.uploads == 60)
        #expect(writer.stats.errors == 0, "\(String(describing: writer.lastError))")
        #expect(writer.stats.bytesUp >= UInt64(bytes))

        let reader = TieredStore(
            local: try directory.store("b"), remote: try RemoteURL.backend(cluster.url, timeouts: testTimeouts))
        var wrong = 0
        for index in 0..<60 {
            let got = try #require(try reader.entry(for: ClusterWorkload.key(index)))
            wrong += ClusterWorkload.wrongBytes(got.value, ClusterWorkload.value(index))
            #expect(got.info.metadata == Data("m\(index)".utf8))
            #expect(got.tier == .remote)
        }
        #expect(wrong == 0)
        #expect(reader.stats.hits == 60)
        #expect(reader.stats.errors == 0)
        #expect(reader.stats.bytesDown >= UInt64(bytes))
        let statistics = try #require(remote as? RedisClusterBackend).statistics
        #expect(statistics.topologyRefreshes == 1)
        #expect(statistics.movedRedirections == 0)
        print("Cluster round trip: 60 puts, 60 gets; \(writer.stats.bytesUp) bytes up, \(reader.stats.bytesDown) down")
    }

    @Test func keysSpreadOverEveryMasterEachOnTheMasterOfItsSlot() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let prefix = prefix()
        let remote = try cluster.backend(prefix: prefix)
        let store = TieredStore(local: try directory.store("a"), remote: remote)
        for index in 0..<40 { try store.put(ClusterWorkload.value(index), for: ClusterWorkload.key(index)) }
        #expect(store.stats.errors == 0, "\(String(describing: store.lastError))")

        let masters = try cluster.masters()
        #expect(masters.count == 3)
        var total = 0
        for master in masters {
            // SCAN of this prefix on this master only: 80 keys in all (a blob and a record each).
            var cursor = "0"
            var found = 0
            repeat {
                let reply = try cluster.admin(master.port).command(
                    ["SCAN", cursor, "MATCH", "\(prefix):*", "COUNT", "1000"].map { Data($0.utf8) },
                    limits: RESPLimits(maximumBulk: 1 << 10, maximumArrayBytes: 1 << 20), timeout: .seconds(5))
                guard case .array(let parts?) = reply, parts.count == 2, let next = parts[0].text,
                    case .array(let keys?) = parts[1]
                else { throw BlobStoreError(.io, "SCAN answered \(reply)") }
                cursor = next
                for key in keys {
                    let slot = HashSlot.slot(of: try #require(key.text).utf8)
                    #expect(master.slotRanges.contains { $0.contains(slot) }, "a key off its slot's master")
                }
                found += keys.count
            } while cursor != "0"
            #expect(found > 0, "master \(master.port) holds none of the keys")
            total += found
        }
        #expect(total == 80)
        #expect(Set(try #require(remote.topology).masters.map(\.port)) == Set(masters.map(\.port)))
    }

    @Test func everyNodeIsLoggedInAndWrongCredentialsAreRemoteErrors() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let seeds = cluster.ports.prefix(1).map { "127.0.0.1:\($0)" }.joined()
        // One seed: the client discovers the other masters and logs in on each.
        let oneSeed = TieredStore(
            local: try directory.store("a"),
            remote: try RemoteURL.backend(
                "redis+cluster://\(cluster.user):\(cluster.password)@\(seeds)", timeouts: testTimeouts))
        // Values of this test only (the URL form has the default prefix, which other tests use).
        let salt = Data(UUID().uuidString.utf8)
        for index in 0..<30 { try oneSeed.put(salt + ClusterWorkload.value(index), for: ClusterWorkload.key(index)) }
        #expect(oneSeed.stats.uploads == 30)
        #expect(oneSeed.stats.errors == 0, "\(String(describing: oneSeed.lastError))")

        for url in ["redis+cluster://\(cluster.user):wrong@\(seeds)", "redis+cluster://\(seeds)"] {
            let local = try directory.store("b-\(UUID().uuidString)")
            let refused = TieredStore(local: local, remote: try RemoteURL.backend(url, timeouts: testTimeouts))
            #expect(try refused.value(for: ClusterWorkload.key(0)) == nil)
            try refused.put(Data("local".utf8), for: "k")
            #expect(try local.value(for: "k") == Data("local".utf8))
            #expect(refused.stats.errors == 1)
            let message = refused.lastError?.message ?? ""
            #expect(message.contains("WRONGPASS") || message.contains("NOAUTH"), "\(message)")
        }
    }

    @Test func askDuringAMigrationThenMovedOnceTheSlotMoved() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let prefix = prefix()
        let writerBackend = try cluster.backend(prefix: prefix)
        let writer = TieredStore(local: try directory.store("a"), remote: writerBackend)
        let value = sampleBytes(5_000, seed: 42)
        try writer.put(value, for: "migrating")
        let recordKey = "\(prefix):ac:\(SHA256Hasher.hash(Array("migrating".utf8)).hex)"
        let slot = HashSlot.slot(of: recordKey.utf8)
        let masters = try cluster.masters()
        let source = try #require(masters.first { $0.slotRanges.contains { $0.contains(slot) } })
        let target = try #require(masters.first { $0.port != source.port })

        // The slot migrates, and the record goes first (redis-cli --cluster reshard does the same,
        // key by key): the source answers -ASK for it.
        let slotText = "\(slot)"
        #expect(
            try cluster.admin(target.port).run("CLUSTER", "SETSLOT", slotText, "IMPORTING", source.id) == .simple("OK"))
        #expect(
            try cluster.admin(source.port).run("CLUSTER", "SETSLOT", slotText, "MIGRATING", target.id) == .simple("OK"))
        let migrated = try cluster.admin(source.port).run(
            "MIGRATE", "127.0.0.1", "\(target.port)", "", "0", "5000", "AUTH", cluster.adminPassword, "KEYS", recordKey)
        #expect(migrated == .simple("OK"))

        let readerBackend = try cluster.backend(prefix: prefix)
        let reader = TieredStore(local: try directory.store("b"), remote: readerBackend)
        #expect(try reader.value(for: "migrating") == value)
        #expect(readerBackend.statistics.askRedirections == 1)
        #expect(readerBackend.topology?.master(forSlot: slot)?.port == source.port, "ASK changes no slot")

        // The slot moves: every master learns its new owner; the writer's map is out of date.
        for master in masters {
            #expect(
                try cluster.admin(master.port).run("CLUSTER", "SETSLOT", slotText, "NODE", target.id) == .simple("OK"))
        }
        try cluster.waitUntilHealthy()
        let third = TieredStore(local: try directory.store("c"), remote: writerBackend)
        #expect(try third.value(for: "migrating") == value)
        #expect(writerBackend.statistics.movedRedirections == 1)
        #expect(writerBackend.topology?.master(forSlot: slot)?.port == target.port)
        #expect(reader.stats.errors == 0)
        #expect(third.stats.errors == 0, "\(String(describing: third.lastError))")
    }

    @Test func reshardingWhileClientsRunFollowsTheRedirectionsAndReturnsNothingWrong() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let prefix = prefix()
        let backends = Mutex([RedisClusterBackend]())
        let workload = try ClusterWorkload(threads: 3, keys: 300, phases: 2, in: directory) {
            let backend = try cluster.backend(prefix: prefix)
            backends.withLock { $0.append(backend) }
            return backend
        }
        usleep(500_000)
        let masters = try cluster.masters()
        let slotsBefore = masters[1].slotRanges.reduce(0) { $0 + $1.count }
        workload.enter(1)
        let (status, output) = try TestCluster.run(
            "/usr/bin/redis-cli",
            [
                "-h", "127.0.0.1", "-p", "\(masters[0].port)", "--cluster", "reshard", "127.0.0.1:\(masters[0].port)",
                "--cluster-from", masters[0].id, "--cluster-to", masters[1].id, "--cluster-slots", "1500",
                "--cluster-yes",
            ], environment: ["REDISCLI_AUTH": cluster.adminPassword])
        #expect(status == 0, "\(output.suffix(2_000))")
        usleep(300_000)
        let phases = workload.stop()
        let all = phases[0] + phases[1]
        print("Cluster resharding of 1500 slots: before \(phases[0]); during \(phases[1])")
        #expect(all.thrown == 0)
        #expect(all.wrongBytes == 0)
        #expect(all.remoteErrors == 0)
        #expect(phases[1].operations > 0)
        #expect(phases[1].remoteHits > 0)
        let redirections = backends.withLock { $0 }.reduce(0) {
            $0 + $1.statistics.movedRedirections + $1.statistics.askRedirections
        }
        #expect(redirections > 0, "the clients saw the slots move")

        // Every key put is where a new client finds it, with its bytes.
        let reader = TieredStore(local: try directory.store("check"), remote: try cluster.backend(prefix: prefix))
        let written = workload.writtenKeys
        var wrong = 0
        for index in written {
            let got = try #require(try reader.value(for: ClusterWorkload.key(index)), "k\(index) was lost")
            wrong += ClusterWorkload.wrongBytes(got, ClusterWorkload.value(index))
        }
        #expect(wrong == 0)
        #expect(reader.stats.hits == written.count)
        let target = try #require(try cluster.masters().first { $0.port == masters[1].port })
        #expect(target.slotRanges.reduce(0) { $0 + $1.count } == slotsBefore + 1500)
    }

    @Test func masterKilledMidRunFailsOverToLocalOnlyThenRemoteHitsResume() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let prefix = prefix()
        let backends = Mutex([RedisClusterBackend]())
        let workload = try ClusterWorkload(threads: 3, keys: 200, phases: 3, in: directory) {
            let backend = try cluster.backend(prefix: prefix)
            backends.withLock { $0.append(backend) }
            return backend
        }
        usleep(1_500_000)
        let victim = try #require(try cluster.masters().first)
        let killedAt = ContinuousClock.now
        workload.enter(1)
        try cluster.kill(victim.port)
        // A replica is promoted within about 2 s (cluster-node-timeout 1000 ms, then an election).
        try cluster.waitFor("the cluster to see the master fail", within: .seconds(10)) {
            (try? cluster.nodes().first { $0.port == victim.port }?.isFailed) ?? false
        }
        try cluster.waitUntilHealthy(within: .seconds(20))
        let window = ContinuousClock.now - killedAt
        workload.enter(2)
        usleep(2_000_000)
        let phases = workload.stop()
        let statistics = backends.withLock { $0 }.map(\.statistics)
        print(
            "Cluster failover (\(window) without master \(victim.port)): before \(phases[0]); during \(phases[1]); "
                + "after \(phases[2]); refreshes \(statistics.map(\.topologyRefreshes)), failed "
                + "\(statistics.map(\.failedRefreshes)), retries on another master \(statistics.map(\.retriesOnAnotherMaster))"
        )
        let all = phases[0] + phases[1] + phases[2]
        #expect(all.thrown == 0, "no error reaches the caller")
        #expect(all.wrongBytes == 0)
        #expect(phases[0].remoteErrors == 0)
        #expect(phases[0].remoteHits > 0)
        #expect(phases[1].operations > 0)
        #expect(phases[1].remoteErrors > 0, "the window was seen")
        #expect(phases[2].remoteHits > 0, "remote hits resume")
        #expect(phases[2].hitRatio > 0.5)

        let promoted = try cluster.masters()
        #expect(promoted.count == 3)
        #expect(!promoted.contains { $0.port == victim.port })
        // The old master comes back as a replica of the one that took over; the cluster is whole.
        try cluster.restart(victim.port)
        try cluster.waitFor("the old master to rejoin as a replica", within: .seconds(20)) {
            guard let node = try? cluster.nodes().first(where: { $0.port == victim.port }) else { return false }
            return !node.isMaster && !node.isFailed
        }
        try cluster.waitUntilHealthy()
    }

    @Test func cliPutsAndGetsThroughTheClusterWithRemoteOrEnvironment() throws {
        let cluster = try cluster
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.child("f")
        let value = sampleBytes(200_000, seed: 7)
        try value.write(to: URL(fileURLWithPath: file))
        let key = "k-" + UUID().uuidString

        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> CLIRun {
            try runCLI(arguments, environment: environment, in: directory)
        }

        let put = try run(["--store", directory.child("A"), "--remote", cluster.url, "put", key, file])
        #expect(put.code == 0, "\(put.stderr)")
        #expect(put.stderr.isEmpty, "\(put.stderr)")
        let get = try run(
            ["--store", directory.child("B"), "get", key], environment: ["BLOBSTORE_REMOTE": cluster.url])
        #expect(get.code == 0, "\(get.stderr)")
        #expect(get.stdout == value)
        let stats = try run(["--store", directory.child("B"), "stats", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
        #expect((json["remote"] as? [String: Any])?["hits"] as? Int == 1)
        let bad = try run(["--store", directory.child("C"), "--remote", "redis+cluster://h:1/0", "get", key])
        #expect(bad.code == 64)

        // remote ping reaches every master and replica of the topology, from one seed.
        let ping = try run(["remote", "ping", "--json"], environment: ["BLOBSTORE_REMOTE": cluster.url])
        #expect(ping.code == 0, "\(ping.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: ping.stdout) as? [String: Any])
        let nodes = try #require(report["nodes"] as? [[String: Any]])
        let roles = nodes.compactMap { $0["role"] as? String }
        #expect(roles.filter { $0 == "master" }.count == 3)
        #expect(roles.filter { $0 == "replica" }.count == 3)
        #expect(Set(nodes.compactMap { $0["node"] as? String }) == Set(cluster.ports.map { "redis://127.0.0.1:\($0)" }))
        #expect(nodes.allSatisfy { ($0["latencyMilliseconds"] as? Double ?? -1) >= 0 && $0["error"] is NSNull })
        let text = try run(["--remote", cluster.url, "remote", "ping"])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(
            String(decoding: text.stdout, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("replica ") }
                .count
                == 3)
    }

    @Test func pingReportsAKilledMasterAsUnreachable() throws {
        let cluster = try cluster
        let remote = try cluster.backend(prefix: prefix())
        let victim = try #require(try cluster.masters().first)
        try cluster.kill(victim.port)
        let nodes = remote.ping()
        #expect(nodes.count == 6)
        let dead = try #require(nodes.first { $0.node == "redis://127.0.0.1:\(victim.port)" })
        #expect(!dead.isReachable)
        #expect(dead.latency == nil)
        #expect(dead.error?.code == .remote)
        #expect(nodes.filter(\.isReachable).count == 5)
        // Its replica takes over; the old master rejoins as a replica and the cluster is whole again.
        try cluster.waitUntilHealthy(within: .seconds(20))
        try cluster.restart(victim.port)
        try cluster.waitFor("the old master to rejoin as a replica", within: .seconds(20)) {
            guard let node = try? cluster.nodes().first(where: { $0.port == victim.port }) else { return false }
            return !node.isMaster && !node.isFailed
        }
        try cluster.waitUntilHealthy()
    }
}
