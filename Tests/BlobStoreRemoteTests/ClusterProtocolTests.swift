import BlobStore
import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreRemote

/// The pure parts of the cluster client: hash slots, the topology replies and the error
/// replies, on bytes a real Redis 7.0 sent (the fuzz seeds) and on hostile ones.
@Suite("Redis Cluster protocol")
struct ClusterProtocolTests {
    // MARK: - Hash slots

    @Test func crc16IsXmodemWithTheSpecsCheckValue() {
        #expect(HashSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(HashSlot.crc16([]) == 0)
        #expect(HashSlot.slot(of: Array("123456789".utf8)) == 0x31C3 % 16384)
    }

    @Test func slotsOfKnownKeys() {
        // What `CLUSTER KEYSLOT` answers on Redis 7.0.
        let known = [
            "foo": 12182, "bar": 5061, "hello": 866, "": 0, "blobstore:ac:0": 6505, "{user1000}.following": 3443,
            "foo{}{bar}": 8363, "foo{{bar}}zap": 4015,
        ]
        for (key, slot) in known {
            #expect(HashSlot.slot(of: Array(key.utf8)) == slot, "\(key)")
        }
    }

    @Test func hashTagsFollowTheSpec() {
        func slot(_ key: String) -> Int { HashSlot.slot(of: Array(key.utf8)) }
        #expect(slot("{user1000}.following") == slot("user1000"))
        #expect(slot("{user1000}.followers") == slot("user1000"))
        #expect(slot("foo{}{bar}") == HashSlot.slot(of: Array("foo{}{bar}".utf8)))  // an empty tag: the whole key
        #expect(String(decoding: HashSlot.hashedPart(of: Array("foo{}{bar}".utf8)), as: UTF8.self) == "foo{}{bar}")
        #expect(String(decoding: HashSlot.hashedPart(of: Array("foo{{bar}}zap".utf8)), as: UTF8.self) == "{bar")
        #expect(String(decoding: HashSlot.hashedPart(of: Array("foo{bar}{zap}".utf8)), as: UTF8.self) == "bar")
        #expect(String(decoding: HashSlot.hashedPart(of: Array("foo{bar".utf8)), as: UTF8.self) == "foo{bar")
    }

    // MARK: - Topology replies

    private static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/Corpus/ClusterTopology").standardizedFileURL

    private func decode(_ bytes: some Sequence<UInt8>) throws -> RESPValue {
        var buffer = RESPBuffer(bytes)
        var decoder = RESPDecoder(limits: ClusterTopology.replyLimits)
        return try decoder.decode(from: &buffer)
    }

    private func node(_ port: UInt16, _ host: String = "127.0.0.1") -> ClusterNode {
        ClusterNode(host: host, port: port)
    }

    @Test func shardsAndSlotsOfARealClusterGiveTheSameMap() throws {
        let shardsBytes = try Data(
            contentsOf: Self.corpus.appendingPathComponent("shards-three-masters-three-replicas.resp"))
        let slotsBytes = try Data(
            contentsOf: Self.corpus.appendingPathComponent("slots-three-masters-three-replicas.resp"))
        let shards = try ClusterTopology(shardsReply: try decode(shardsBytes), askedHost: "127.0.0.1")
        let slots = try ClusterTopology(slotsReply: try decode(slotsBytes), askedHost: "127.0.0.1")
        #expect(shards.servedSlots == 16384)
        #expect(Set(shards.masters) == [node(12462), node(13615), node(11008)])
        #expect(Set(shards.nodes) == Set(slots.nodes))
        #expect(shards.nodes.count == 6)
        for slot in 0..<HashSlot.count {
            #expect(shards.master(forSlot: slot) == slots.master(forSlot: slot))
        }
        #expect(slots.master(forSlot: 0) == node(12462))
        #expect(slots.master(forSlot: 5461) == node(13615))
        #expect(slots.master(forSlot: 16383) == node(11008))
        #expect(slots.ranges == [[0...5460], [5461...10922], [10923...16383]])
    }

    /// A `CLUSTER SLOTS` reply of `(start, end, [host, port]…)` entries.
    private func slotsReply(_ entries: [(Int, Int, [RESPValue])]) -> RESPValue {
        .array(entries.map { .array([.integer(Int64($0.0)), .integer(Int64($0.1))] + $0.2) })
    }

    private func host(_ name: String?, _ port: Int64) -> RESPValue {
        .array([.bulk(name.map { Data($0.utf8) }), .integer(port), .bulk(Data("id".utf8))])
    }

    @Test func unknownEndpointIsTheAskedHostAndQuestionMarkIsNone() throws {
        let topology = try ClusterTopology(
            slotsReply: slotsReply([
                (0, 99, [host(nil, 7000), host("", 7003)]), (100, 199, [host("?", 7001)]),
                (200, 16383, [host("cache-2.internal", 7002), host("?", 7004)]),
            ]), askedHost: "seed.internal")
        #expect(topology.master(forSlot: 0) == node(7000, "seed.internal"))
        #expect(topology.replicas[0] == [node(7003, "seed.internal")])
        #expect(topology.master(forSlot: 150) == nil)
        #expect(topology.master(forSlot: 16383) == node(7002, "cache-2.internal"))
        #expect(topology.servedSlots == 16384 - 100)
    }

    /// Slot ranges (start, end, master's port) that no reply may hold, by what is wrong.
    static let badRanges: [(String, [(Int, Int, Int64)])] = [
        ("overlap", [(0, 100, 7000), (100, 200, 7001)]), ("twice", [(0, 10, 7000), (5, 6, 7000)]),
        ("beyond", [(0, 16384, 7000)]), ("reversed", [(10, 9, 7000)]), ("negative", [(-1, 9, 7000)]),
        ("port zero", [(0, 9, 0)]), ("port too large", [(0, 9, 65536)]),
    ]

    @Test(arguments: badRanges)
    func badSlotsReplyIsRefusedWhole(name: String, entries: [(Int, Int, Int64)]) {
        let reply = slotsReply(entries.map { ($0.0, $0.1, [host("127.0.0.1", $0.2)]) })
        #expect(throws: ClusterTopology.Malformed.self, "\(name)") {
            _ = try ClusterTopology(slotsReply: reply, askedHost: "h")
        }
    }

    @Test func slotsReplyThatIsNotOneIsRefused() {
        for reply: RESPValue in [
            .integer(1), .array(nil), .array([.integer(1)]), .array([.array([.integer(0), .integer(1)])]),
            .array([.array([.integer(0), .integer(1), .array([.bulk(Data("h".utf8))])])]),
            .array([.array([.integer(0), .integer(1), .array([.bulk(Data("a b".utf8)), .integer(1)])])]),
            .array([.array([.integer(0), .bulk(Data("x".utf8)), .array([.bulk(Data("h".utf8)), .integer(1)])])]),
        ] {
            #expect(throws: ClusterTopology.Malformed.self, "\(reply)") {
                _ = try ClusterTopology(slotsReply: reply, askedHost: "h")
            }
        }
    }

    /// A `CLUSTER SHARDS` node as a flat map.
    private func shardNode(_ port: Int64, role: String, health: String = "online", endpoint: String? = "127.0.0.1")
        -> RESPValue
    {
        var fields: [RESPValue] = [
            .bulk(Data("id".utf8)), .bulk(Data("x".utf8)), .bulk(Data("port".utf8)), .integer(port),
        ]
        if let endpoint { fields += [.bulk(Data("endpoint".utf8)), .bulk(Data(endpoint.utf8))] }
        fields += [
            .bulk(Data("role".utf8)), .bulk(Data(role.utf8)), .bulk(Data("health".utf8)), .bulk(Data(health.utf8)),
        ]
        return .array(fields)
    }

    private func shard(_ slots: [Int64], _ nodes: [RESPValue]) -> RESPValue {
        .array([
            .bulk(Data("slots".utf8)), .array(slots.map(RESPValue.integer)), .bulk(Data("nodes".utf8)), .array(nodes),
        ])
    }

    @Test func shardsReplyPrefersAnOnlineMasterAndSkipsShardsWithoutSlots() throws {
        let reply = RESPValue.array([
            shard(
                [0, 8191],
                [
                    shardNode(7000, role: "master", health: "failed"), shardNode(7001, role: "master"),
                    shardNode(7002, role: "replica"),
                ]),
            shard([8192, 9000, 9001, 16383], [shardNode(7003, role: "master", endpoint: nil)]),
            shard([], [shardNode(7004, role: "master")]),
        ])
        let topology = try ClusterTopology(shardsReply: reply, askedHost: "seed")
        #expect(topology.master(forSlot: 0) == node(7001))
        #expect(Set(topology.replicas[0]) == [node(7000), node(7002)])
        #expect(topology.master(forSlot: 9000) == node(7003, "seed"))  // neither endpoint nor ip: the node asked
        #expect(topology.servedSlots == 16384)
        #expect(!topology.masters.contains(node(7004)))
    }

    @Test func shardsReplyGivesTheTLSPortToATLSClient() throws {
        // A node with both ports, and one with a TLS port only (`port 0`).
        let both = RESPValue.array([
            .bulk(Data("port".utf8)), .integer(7000), .bulk(Data("tls-port".utf8)), .integer(8000),
            .bulk(Data("ip".utf8)), .bulk(Data("127.0.0.1".utf8)), .bulk(Data("role".utf8)), .bulk(Data("master".utf8)),
        ])
        let tlsOnly = RESPValue.array([
            .bulk(Data("tls-port".utf8)), .integer(8001), .bulk(Data("ip".utf8)), .bulk(Data("127.0.0.1".utf8)),
            .bulk(Data("role".utf8)), .bulk(Data("master".utf8)),
        ])
        let reply = RESPValue.array([shard([0, 8191], [both]), shard([8192, 16383], [tlsOnly])])
        let overTLS = try ClusterTopology(shardsReply: reply, askedHost: "seed", usesTLS: true)
        #expect(overTLS.master(forSlot: 0) == node(8000))
        #expect(overTLS.master(forSlot: 16383) == node(8001))
        let plain = try ClusterTopology(shardsReply: reply, askedHost: "seed")
        #expect(plain.master(forSlot: 0) == node(7000))
        #expect(plain.master(forSlot: 16383) == nil)  // no plain port: unserved
    }

    @Test func shardsReplyThatIsNotOneIsRefused() {
        let master = shardNode(7000, role: "master")
        for reply: RESPValue in [
            .array([shard([0], [master])]), .array([shard([0, 16384], [master])]),
            .array([shard([0, 10], [shardNode(7000, role: "leader")])]),
            .array([.array([.bulk(Data("slots".utf8))])]),
            .array([shard([0, 10], [master]), shard([10, 20], [master])]),
            .array([.array([.bulk(Data("slots".utf8)), .array([]), .bulk(Data("nodes".utf8)), .integer(1)])]),
        ] {
            #expect(throws: ClusterTopology.Malformed.self, "\(reply)") {
                _ = try ClusterTopology(shardsReply: reply, askedHost: "h")
            }
        }
    }

    @Test func movedPatchesOneSlotAndAddsANewMaster() throws {
        var topology = try ClusterTopology(
            slotsReply: slotsReply([(0, 16383, [host("127.0.0.1", 7000)])]), askedHost: "h")
        topology.assign(42, to: node(7009))
        #expect(topology.master(forSlot: 42) == node(7009))
        #expect(topology.master(forSlot: 43) == node(7000))
        #expect(topology.ranges == [[0...41, 43...16383], [42...42]])
    }

    // MARK: - Error replies

    /// The fuzzer's findings (Fuzz/FailCases/ClusterTopology), replayed: each fixed bug stays fixed.
    @Test func fuzzFailCasesStayFixed() throws {
        let directory = Self.corpus.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("FailCases/ClusterTopology")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!files.isEmpty)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(file)))
            let text = String(
                decoding: bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...], as: UTF8.self)
            if case .unavailable(let message) = ClusterErrorReply(text, answeredBy: node(1)) {
                #expect(message.utf8.count <= 202, "\(file)")
            }
            if let reply = try? decode(bytes) {
                _ = try? ClusterTopology(shardsReply: reply, askedHost: "h")
                _ = try? ClusterTopology(slotsReply: reply, askedHost: "h")
            }
        }
    }

    @Test func redirectionsAndUnavailableClusters() {
        let answering = node(7000, "seed")
        func reply(_ text: String) -> ClusterErrorReply? { ClusterErrorReply(text, answeredBy: answering) }
        #expect(reply("MOVED 3999 127.0.0.1:6381") == .moved(slot: 3999, to: node(6381)))
        #expect(reply("ASK 3999 127.0.0.1:6381") == .ask(slot: 3999, to: node(6381)))
        #expect(reply("MOVED 3999 :6381") == .moved(slot: 3999, to: node(6381, "seed")))
        #expect(reply("MOVED 16383 ::1:6381") == .moved(slot: 16383, to: node(6381, "::1")))
        #expect(reply("ASK 1 [::1]:6381") == .ask(slot: 1, to: node(6381, "::1")))
        #expect(reply("MOVED 1 cache-3.internal:7000") == .moved(slot: 1, to: node(7000, "cache-3.internal")))
        #expect(reply("MOVED 3999 ?:6381") == .unavailable("MOVED 3999 to a node without an endpoint"))
        #expect(reply("CLUSTERDOWN The cluster is down") == .unavailable("CLUSTERDOWN The cluster is down"))
        #expect(reply("TRYAGAIN Multiple keys request during rehashing of slot") != nil)
        for ordinary in [
            "ERR unknown command", "OOM command not allowed", "NOAUTH Authentication required.", "MOVED", "MOVED 1",
            "MOVED 16384 h:1", "MOVED -1 h:1", "MOVED 1 h:0", "MOVED 1 h:65536", "MOVED 1 h", "MOVED 1 h:1 extra",
            "MOVED 1 a b:1", "MOVED 0000000000001 h:1", "", "moved 1 h:1",
        ] {
            #expect(reply(ordinary) == nil, "\(ordinary)")
        }
    }
}

/// The cluster client against a fake node that answers fixed bytes: what a real cluster does
/// rarely or never (a redirection loop, a node not in cluster mode, a node before Redis 7).
@Suite("Redis Cluster routing with a fake node")
struct ClusterRoutingTests {
    private let digest = SHA256Hasher.hash(Array("x".utf8))

    /// `CLUSTER SLOTS`: every slot on 127.0.0.1:`port`.
    private static func allSlots(on port: UInt16) -> Data {
        RESPValue.array([
            .array([.integer(0), .integer(16383), .array([.bulk(Data("127.0.0.1".utf8)), .integer(Int64(port))])])
        ]).encoded
    }

    private static let unknownShards = Data("-ERR unknown subcommand 'SHARDS'. Try CLUSTER HELP.\r\n".utf8)

    private func backend(_ server: CannedServer) throws -> RedisClusterBackend {
        try RedisClusterBackend(seeds: [RedisServer(host: "127.0.0.1", port: server.port)], timeouts: testTimeouts)
    }

    @Test func nodeWithoutClusterShardsIsAskedForClusterSlotsThenServes() throws {
        let server = CannedServer(keepOpen: true) { port in
            [Self.unknownShards, Self.allSlots(on: port), Data("$-1\r\n".utf8)]
        }
        defer { server.stop() }
        let backend = try backend(server)
        #expect(try backend.blob(digest, maximumSize: 10) == nil)
        #expect(backend.statistics.topologyRefreshes == 1)
        #expect(server.connections == 1)
    }

    @Test func redirectionLoopIsARemoteErrorAfterFive() throws {
        let server = CannedServer(keepOpen: true) { port in
            [Self.unknownShards, Self.allSlots(on: port)]
                + Array(repeating: Data("-MOVED 1 127.0.0.1:\(port)\r\n".utf8), count: 6)
        }
        defer { server.stop() }
        let backend = try backend(server)
        #expect {
            _ = try backend.blob(digest, maximumSize: 10)
        } throws: { error in
            (error as? BlobStoreError)?.message.contains("more than 5 redirections") == true
        }
        #expect(backend.statistics.movedRedirections == 6)
    }

    @Test func clusterDownIsARemoteErrorTheTieredStoreCounts() throws {
        let server = CannedServer(keepOpen: true) { port in
            [Self.unknownShards, Self.allSlots(on: port), Data("-CLUSTERDOWN The cluster is down\r\n".utf8)]
        }
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = TieredStore(local: try directory.store("a"), remote: try backend(server))
        #expect(try store.value(for: "k") == nil)
        #expect(store.stats.errors == 1)
        #expect(store.lastError?.message.contains("cannot serve slot") == true)
        #expect(store.lastError?.message.contains("CLUSTERDOWN") == true)
    }

    @Test func serverNotInClusterModeIsARemoteErrorThatSaysSo() throws {
        let disabled = Data("-ERR This instance has cluster support disabled\r\n".utf8)
        let server = CannedServer(replies: [disabled, disabled], keepOpen: true)
        defer { server.stop() }
        let backend = try backend(server)
        #expect {
            _ = try backend.containsBlob(digest)
        } throws: { error in
            (error as? BlobStoreError)?.message.contains("Use redis:// for a server that is not a cluster") == true
        }
        #expect(backend.statistics.failedRefreshes == 1)
    }

    @Test func topologyThatIsNotOneIsARemoteError() throws {
        let server = CannedServer(replies: [Data("*1\r\n*2\r\n:0\r\n:1\r\n".utf8)], keepOpen: true)
        defer { server.stop() }
        #expect {
            _ = try backend(server).containsBlob(digest)
        } throws: { error in
            (error as? BlobStoreError)?.message.contains("the cluster's map is not one") == true
        }
    }

    @Test func seedsThatHangCostAboutOneOperationTimeoutNotOneEach() throws {
        let servers = (0..<3).map { _ in CannedServer(replies: [], keepOpen: true) }
        defer { servers.forEach { $0.stop() } }
        let timeouts = RemoteTimeouts(connect: .milliseconds(200), operation: .milliseconds(300))
        let backend = try RedisClusterBackend(
            seeds: servers.map { RedisServer(host: "127.0.0.1", port: $0.port) }, timeouts: timeouts)
        let start = ContinuousClock.now
        #expect(throws: BlobStoreError.self) { _ = try backend.containsBlob(digest) }
        let elapsed = ContinuousClock.now - start
        #expect(elapsed >= .milliseconds(290))
        #expect(elapsed < .milliseconds(800), "not three operation timeouts")
        #expect(backend.statistics.failedRefreshes == 1)
    }

    @Test func clusterURLForms() throws {
        let seeds = try RemoteURL.clusterSeeds("redis+cluster://bob:p%40ss@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002")
        #expect(seeds.map(\.host) == ["10.0.0.1", "10.0.0.2", "::1"])
        #expect(seeds.map(\.port) == [7000, 7001, 7002])
        #expect(seeds.allSatisfy { $0.user == "bob" && $0.password == "p@ss" && $0.database == 0 })
        #expect(try RemoteURL.clusterSeeds("redis+cluster://h") == [RedisServer(host: "h")])
        let backend = try #require(try RemoteURL.backend("REDIS+CLUSTER://pw@h1:7000,h2:7001") as? RedisClusterBackend)
        #expect(backend.name == "redis+cluster://h1:7000,h2:7001")
        #expect(backend.seeds.map(\.password) == ["pw", "pw"])
        for bad in ["redis+cluster://", "redis+cluster://h:1/0", "redis+cluster://a,,b"] {
            #expect(throws: BlobStoreError.self, "\(bad)") { _ = try RemoteURL.backend(bad) }
        }
        #expect {
            _ = try RemoteURL.backend("redis+cluster://u:hunter2@h:x")
        } throws: { error in
            guard let message = (error as? BlobStoreError)?.message else { return false }
            return !message.contains("hunter2") && message.contains("redis+cluster://***@h:x")
        }
        #expect(throws: BlobStoreError.self) {
            _ = try RedisClusterBackend(seeds: [RedisServer(host: "h", database: 1)])
        }
    }
}
