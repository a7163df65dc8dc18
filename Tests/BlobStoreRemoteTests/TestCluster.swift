import BlobStore
import BlobStoreNet
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStoreRemote

/// A Redis Cluster of three masters and three replicas on 127.0.0.1 that scripts/redis-cluster.sh
/// started (cluster-node-timeout 1000 ms, an ACL user on every node), stopped by ``stop()``.
final class TestCluster: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/redis-cluster.sh").standardizedFileURL.path

    /// The cluster of the suite that runs, given by ``RedisClusterTrait``.
    @TaskLocal static var current: TestCluster?

    let environmentFile: String
    let directory: String
    /// Every node's port, the three first masters as created.
    let ports: [UInt16]
    let user: String
    let password: String
    let adminPassword: String
    /// `redis+cluster://USER:PASSWORD@127.0.0.1:PORT,…` (`rediss+cluster://` over TLS).
    let url: String

    private init(environmentFile: String, values: [String: String]) throws {
        self.environmentFile = environmentFile
        directory = try #require(values["BLOBSTORE_CLUSTER_DIR"])
        ports = try #require(values["BLOBSTORE_CLUSTER_PORTS"]).split(separator: " ").compactMap { UInt16($0) }
        user = try #require(values["BLOBSTORE_CLUSTER_USER"])
        password = try #require(values["BLOBSTORE_CLUSTER_PASSWORD"])
        adminPassword = try #require(values["BLOBSTORE_CLUSTER_ADMIN_PASSWORD"])
        url = try #require(values["BLOBSTORE_CLUSTER_URL"])
        try #require(ports.count == 6)
    }

    /// Runs `scripts/redis-cluster.sh start` (about 4 s) with `environment` added to this
    /// process's (its knobs: `BLOBSTORE_CLUSTER_TLS_DIR` for a cluster over TLS) and reads what
    /// it wrote.
    static func start(environment: [String: String] = [:]) throws -> TestCluster {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/redis-cli"),
            "redis-server and redis-cli are not installed: run scripts/install-deps.sh")
        let environmentFile = NSTemporaryDirectory() + "blobstore-cluster-env-" + UUID().uuidString
        let (status, output) = try run(script, ["start", environmentFile], environment: environment)
        guard status == 0 else {
            _ = try? run(script, ["stop", environmentFile])
            try? FileManager.default.removeItem(atPath: environmentFile)
            Issue.record("scripts/redis-cluster.sh start failed (\(status)): \(output)")
            throw BlobStoreError(.io, "the cluster did not start")
        }
        var values: [String: String] = [:]
        for line in try String(contentsOfFile: environmentFile, encoding: .utf8).split(separator: "\n") {
            guard line.hasPrefix("export "), let equals = line.firstIndex(of: "=") else { continue }
            let name = String(line[line.index(line.startIndex, offsetBy: 7)..<equals])
            values[name] = String(line[line.index(after: equals)...]).trimmingCharacters(
                in: CharacterSet(charactersIn: "\""))
        }
        return try TestCluster(environmentFile: environmentFile, values: values)
    }

    /// Stops every node by its pidfile and removes the directory.
    func stop() {
        _ = try? Self.run(Self.script, ["stop", environmentFile])
        try? FileManager.default.removeItem(atPath: environmentFile)
    }

    // MARK: - Clients

    /// The masters as created, as seeds with the ACL user.
    var seeds: [RedisServer] {
        ports.prefix(3).map { RedisServer(host: "127.0.0.1", port: $0, user: user, password: password) }
    }

    /// A backend on the cluster with keys under `prefix`.
    func backend(prefix: String, timeouts: RemoteTimeouts = testTimeouts) throws -> RedisClusterBackend {
        try RedisClusterBackend(seeds: seeds, prefix: prefix, timeouts: timeouts)
    }

    /// A connection to one node as the default user, which redis-cli uses too.
    func admin(_ port: UInt16) throws -> RedisConnection {
        try RedisConnection(
            RedisServer(host: "127.0.0.1", port: port, password: adminPassword),
            timeouts: RemoteTimeouts(connect: .seconds(1), operation: .seconds(10)))
    }

    /// A command's reply as text (`CLUSTER NODES`, `CLUSTER INFO`, `INFO`).
    func text(_ port: UInt16, _ arguments: String...) throws -> String {
        let reply = try admin(port).command(
            arguments.map { Data($0.utf8) }, limits: RESPLimits(maximumBulk: 1 << 20, maximumArrayBytes: 1 << 20),
            timeout: .seconds(10))
        guard let text = reply.text else { throw BlobStoreError(.io, "\(arguments) answered \(reply)") }
        return text
    }

    // MARK: - The nodes

    /// One line of `CLUSTER NODES`.
    struct Node {
        let id: String
        let port: UInt16
        let flags: Set<String>
        let masterID: String?
        let slotRanges: [ClosedRange<Int>]

        var isMaster: Bool { flags.contains("master") }
        var isFailed: Bool { flags.contains("fail") || flags.contains("fail?") }
    }

    /// The nodes as a live node sees them.
    func nodes() throws -> [Node] {
        var lastError: (any Error)?
        for port in ports where answers(port) {
            do {
                return try text(port, "CLUSTER", "NODES").split(separator: "\n").compactMap { line in
                    let fields = line.split(separator: " ").map(String.init)
                    guard fields.count >= 8, let address = fields[1].split(separator: "@").first,
                        let port = address.split(separator: ":").last.flatMap({ UInt16($0) })
                    else { return nil }
                    let ranges = fields.dropFirst(8).compactMap { field -> ClosedRange<Int>? in
                        guard !field.hasPrefix("[") else { return nil }  // a slot being migrated
                        let bounds = field.split(separator: "-").compactMap { Int($0) }
                        guard let first = bounds.first else { return nil }
                        return first...(bounds.last ?? first)
                    }
                    return Node(
                        id: fields[0], port: port, flags: Set(fields[2].split(separator: ",").map(String.init)),
                        masterID: fields[3] == "-" ? nil : fields[3], slotRanges: ranges)
                }
            } catch {
                lastError = error
            }
        }
        throw lastError ?? BlobStoreError(.io, "no node answers")
    }

    /// The masters that serve slots.
    func masters() throws -> [Node] { try nodes().filter { $0.isMaster && !$0.slotRanges.isEmpty } }

    /// Whether something listens on `port`.
    func answers(_ port: UInt16) -> Bool {
        guard
            let fd = try? SocketSyscalls.connect(
                host: "127.0.0.1", port: port, timeout: .milliseconds(200), server: .remote("test"))
        else { return false }
        SocketSyscalls.close(fd)
        return true
    }

    /// SIGKILL to the node on `port`, as a crash or a lost machine; returns when it no longer
    /// listens.
    func kill(_ port: UInt16) throws {
        let pidText = try String(contentsOfFile: "\(directory)/\(port)/redis.pid", encoding: .utf8)
        let pid = try #require(pid_t(pidText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(Glibc.kill(pid, SIGKILL) == 0)
        try waitFor("node \(port) to stop listening", within: .seconds(5)) { !answers(port) }
    }

    /// Starts the node on `port` again from its configuration (it rejoins the cluster as its
    /// nodes.conf says, a replica of the master that took over) and waits for it to listen.
    func restart(_ port: UInt16) throws {
        let (status, output) = try Self.run(Self.script, ["restart", environmentFile, "\(port)"])
        try #require(status == 0, "redis-server did not start again: \(output)")
    }

    /// Waits until every live node says `cluster_state:ok` with all 16384 slots ok, and every
    /// master that serves slots is alive.
    func waitUntilHealthy(within limit: Duration = .seconds(20)) throws {
        try waitFor("the cluster to be healthy", within: limit) {
            let live = ports.filter { answers($0) }
            for port in live {
                guard let info = try? text(port, "CLUSTER", "INFO"),
                    info.contains("cluster_state:ok"), info.contains("cluster_slots_ok:16384")
                else { return false }
            }
            guard let masters = try? masters() else { return false }
            return masters.allSatisfy { !$0.isFailed && live.contains($0.port) }
        }
    }

    func waitFor(_ what: String, within limit: Duration, _ condition: () -> Bool) throws {
        let deadline = ContinuousClock.now + limit
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out after \(limit) waiting for \(what)")
                throw BlobStoreError(.io, "timed out waiting for \(what)")
            }
            usleep(50_000)
        }
    }

    /// Runs a program to its end: its status and what it wrote (standard output, then error).
    @discardableResult
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> (Int32, String)
    {
        let run = try withTemporaryDirectory { scratch in
            try ChildProcess.run(program, arguments, environment: environment, in: scratch)
        }
        return (run.status, run.stdout + run.stderr)
    }
}

/// Starts one cluster for the suite it is on, before its first test, and stops it after the
/// last; its tests find it in ``TestCluster/current``.
struct RedisClusterTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let cluster = try TestCluster.start()
        defer { cluster.stop() }
        try await TestCluster.$current.withValue(cluster) { try await function() }
    }
}

extension Trait where Self == RedisClusterTrait {
    /// A Redis Cluster for the suite (``TestCluster/current``).
    static var redisCluster: Self { Self() }
}
