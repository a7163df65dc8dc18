import BlobStore
import BlobStoreNet
import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStoreRemote

/// A redis-server or nginx this test started on 127.0.0.1, with its own configuration, pidfile
/// and data under a temporary directory; stopped and removed by ``stop()`` or on deinit.
final class ServerProcess: Sendable {
    let process: RunningChild
    let port: UInt16
    let directory: String

    init(process: RunningChild, port: UInt16, directory: String) {
        self.process = process
        self.port = port
        self.directory = directory
    }

    deinit { stop() }

    /// SIGKILL, as a crash or a lost machine: no goodbye to clients.
    func kill() {
        if process.isRunning {
            process.send(SIGKILL)
            _ = try? process.wait()
        }
    }

    /// The request lines nginx logged (`PUT /cas/… HTTP/1.1`); empty for redis-server.
    func loggedRequests() -> [String] {
        let log = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return log.split(separator: "\n").compactMap { line in
            line.split(separator: "\"", maxSplits: 2, omittingEmptySubsequences: false).dropFirst().first.map(
                String.init)
        }
    }

    /// How many times redis-server ran `command` (`INFO commandstats`, `cmdstat_set:calls=3,…`).
    func redisCalls(_ command: String) throws -> Int {
        guard case .bulk(let data?) = try rawRedis(self).run("INFO", "commandstats") else { return -1 }
        let prefix = "cmdstat_\(command.lowercased()):calls="
        for line in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        where line.hasPrefix(prefix) {
            return Int(line.dropFirst(prefix.count).prefix { $0.isNumber }) ?? -1
        }
        return 0
    }

    func stop() {
        kill()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// Starts private servers for tests. The binaries must be installed (scripts/install-deps.sh
/// installs them; CI runs it): a missing one fails the test, it is not skipped.
enum TestServers {
    static let redisBinary = "/usr/bin/redis-server"
    static let nginxBinary = "/usr/sbin/nginx"
    /// The nginx configuration scripts/test-servers.sh runs too, with `@…@` placeholders.
    static let nginxTemplate = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/nginx-cache.conf").standardizedFileURL.path

    /// A redis-server with no persistence; `maxmemory` (e.g. `"2mb"`) with `allkeys-lru`.
    static func startRedis(maxmemory: String? = nil, password: String? = nil) throws -> ServerProcess {
        try startRedis(listening: { ["--port", "\($0)"] }) { _ in
            var arguments: [String] = []
            if let maxmemory {
                arguments += [
                    "--maxmemory", maxmemory, "--maxmemory-policy", "allkeys-lru", "--maxmemory-samples", "10",
                ]
            }
            if let password { arguments += ["--requirepass", password] }
            return arguments
        }
    }

    /// An nginx serving `<directory>/root` with WebDAV PUT (scripts/nginx-cache.conf).
    /// With `htpasswd` (lines `user:{PLAIN}password`), every request needs HTTP Basic credentials.
    /// Requests are logged to `<directory>/access.log`.
    static func startNginx(htpasswd: String? = nil) throws -> ServerProcess {
        try startNginx(template: nginxTemplate) { directory in
            var authentication = ""
            if let htpasswd {
                try htpasswd.write(toFile: directory + "/htpasswd", atomically: true, encoding: .utf8)
                authentication = "auth_basic \"cache\"; auth_basic_user_file \(directory)/htpasswd;"
            }
            return ["@DAEMON@": "off", "@AUTH@": authentication]
        }
    }

    /// The TLS variant of that configuration (scripts/nginx-cache-tls.conf).
    static let nginxTLSTemplate = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/nginx-cache-tls.conf").standardizedFileURL.path

    /// An nginx serving `<directory>/root` with WebDAV PUT over TLS only: the default server
    /// presents `certificate`, and the server named `localhost` (reached with that SNI)
    /// `sniCertificate`, both of `certificates`.
    static func startNginxTLS(
        _ certificates: TestCertificates, certificate: TestCertificates.Name,
        sniCertificate: TestCertificates.Name? = nil
    ) throws -> ServerProcess {
        try startNginx(template: nginxTLSTemplate) { _ in
            [
                "@SNI_CERT@": certificates.base(sniCertificate ?? certificate),
                "@CERT@": certificates.base(certificate),
            ]
        }
    }

    /// A redis-server that speaks TLS only (`--port 0 --tls-port`), presenting `certificate` of
    /// `certificates`, asking no client certificate; no persistence.
    static func startRedisTLS(_ certificates: TestCertificates, certificate: TestCertificates.Name) throws
        -> ServerProcess
    {
        try startRedis(listening: { ["--port", "0", "--tls-port", "\($0)"] }) { _ in
            [
                "--tls-cert-file", certificates.base(certificate) + ".pem",
                "--tls-key-file", certificates.base(certificate) + ".key",
                "--tls-ca-cert-file", certificates.caFile, "--tls-auth-clients", "no",
            ]
        }
    }

    // MARK: - Helpers

    /// Starts a redis-server without persistence, its files in a scratch directory, listening as
    /// `listening` says for a free port, with the arguments `extra` gives for that directory.
    private static func startRedis(
        listening: (UInt16) -> [String], extra: (String) throws -> [String]
    ) throws -> ServerProcess {
        try requireInstalled(redisBinary, "redis-server")
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        let port = LocalPorts.free()
        let arguments =
            listening(port) + [
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--dir", directory, "--pidfile", directory + "/redis.pid",
                "--logfile", directory + "/redis.log",
            ] + (try extra(directory))
        return try launch(redisBinary, arguments, port: port, in: scratch)
    }

    /// Starts an nginx from `template`, its files (and `root/`) in a scratch directory: `@DIR@`
    /// and `@PORT@` are filled in, and the placeholders `placeholders` returns for that directory.
    private static func startNginx(
        template: String, placeholders: (String) throws -> [String: String]
    ) throws -> ServerProcess {
        try requireInstalled(nginxBinary, "nginx")
        let scratch = TemporaryDirectory()
        let directory = scratch.path
        let port = LocalPorts.free()
        try FileManager.default.createDirectory(atPath: directory + "/root", withIntermediateDirectories: true)
        var configuration = try String(contentsOfFile: template, encoding: .utf8)
        let values = try placeholders(directory).merging(["@DIR@": directory, "@PORT@": "\(port)"]) { own, _ in own }
        for (placeholder, value) in values {
            configuration = configuration.replacingOccurrences(of: placeholder, with: value)
        }
        try configuration.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        return try launch(
            nginxBinary, ["-p", directory, "-e", directory + "/error.log", "-c", directory + "/nginx.conf"], port: port,
            in: scratch)
    }

    /// Fails the test when `binary` is not installed.
    private static func requireInstalled(_ binary: String, _ name: String) throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: binary),
            "\(name) is not installed: run scripts/install-deps.sh")
    }

    /// Starts `binary` with its files in `scratch` (removed when the server stops) and waits until
    /// it listens on `port`.
    private static func launch(_ binary: String, _ arguments: [String], port: UInt16, in scratch: TemporaryDirectory)
        throws -> ServerProcess
    {
        let directory = scratch.path
        let process = try ChildProcess.start(binary, arguments, in: scratch)
        let server = ServerProcess(process: process, port: port, directory: directory)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if let fd = try? SocketSyscalls.connect(
                host: "127.0.0.1", port: port, timeout: .milliseconds(100), server: .remote("test"))
            {
                SocketSyscalls.close(fd)
                return server
            }
            try #require(process.isRunning, "\(binary) exited at once; see \(directory)")
            usleep(20_000)
        }
        Issue.record("\(binary) did not listen on \(port) within 10 s")
        throw BlobStoreError(.io, "server did not start")
    }

}

/// `count` puts from as many threads through one `TieredStore` with an empty store of its own,
/// then as many gets through a second one: each value is uploaded once and read back from the
/// remote, whatever the backend.
func checkConcurrentRoundTrip(_ remote: any RemoteBackend, count: Int, in directory: TemporaryDirectory) throws {
    let writer = TieredStore(local: try directory.store("a"), remote: remote)
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let value = sampleBytes(3_000 + index, seed: UInt8(truncatingIfNeeded: index))
        _ = try? writer.put(value, for: StoreKey("k\(index)"))
    }
    #expect(writer.stats.errors == 0)
    #expect(writer.stats.uploads == count)
    let reader = TieredStore(local: try directory.store("b"), remote: remote)
    let values = Mutex([Int: Data]())
    DispatchQueue.concurrentPerform(iterations: count) { index in
        let value = try? reader.value(for: StoreKey("k\(index)"))
        values.withLock { $0[index] = value }
    }
    let read = values.withLock { $0 }
    for index in 0..<count {
        #expect(read[index] == sampleBytes(3_000 + index, seed: UInt8(truncatingIfNeeded: index)), "k\(index)")
    }
    #expect(reader.stats.hits == count)
    #expect(reader.stats.errors == 0)
}

/// A key put and removed through one `TieredStore` is gone for a second one with an empty
/// store of its own: the remote record was deleted, so it is a plain miss, not a dangling record.
func checkRemoveDeletesTheRecord(_ remote: any RemoteBackend, in directory: TemporaryDirectory) throws {
    let writer = TieredStore(local: try directory.store("a"), remote: remote)
    try writer.put(Data("v".utf8), for: "k")
    #expect(try writer.remove("k"))
    #expect(try writer.remove("k") == false)
    #expect(writer.stats.errors == 0, "\(String(describing: writer.lastError))")
    let reader = TieredStore(local: try directory.store("b"), remote: remote)
    #expect(try reader.value(for: "k") == nil)
    #expect(reader.stats.misses == 1)
    #expect(reader.stats.danglingRecords == 0)
}

/// Deterministic bytes that differ per `seed`.
func sampleBytes(_ count: Int, seed: UInt8) -> Data {
    // A 4 KiB pattern (built byte by byte: slow in debug builds), repeated.
    let pattern = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) ^ seed })
    var data = Data(capacity: count)
    while data.count < count { data.append(pattern.prefix(count - data.count)) }
    return data
}

/// A raw Redis connection, to look at or tamper with what the backend stored.
func rawRedis(_ server: ServerProcess, password: String? = nil) throws -> RedisConnection {
    try RedisConnection(
        RedisServer(host: "127.0.0.1", port: server.port, password: password),
        timeouts: RemoteTimeouts(connect: .seconds(1), operation: .seconds(5)))
}

extension RedisConnection {
    /// Runs a command given as strings.
    func run(_ arguments: String...) throws -> RESPValue {
        try command(arguments.map { Data($0.utf8) }, maximumBulk: 1 << 30, timeout: .seconds(5))
    }

    func run(_ arguments: [Data]) throws -> RESPValue {
        try command(arguments, maximumBulk: 1 << 30, timeout: .seconds(5))
    }
}

/// Test timeouts: quick to give up, so a dead server costs well under a second.
let testTimeouts = RemoteTimeouts(connect: .milliseconds(200), operation: .seconds(1))
