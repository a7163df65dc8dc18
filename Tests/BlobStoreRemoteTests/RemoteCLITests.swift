import BlobStore
import BlobStoreCLI
import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreRemote

/// The acceptance lines, through the CLI: `put` with a remote into one store, `get` from
/// another store with an empty local tier. Uses the servers `.ci/run` started
/// (`BLOBSTORE_TEST_REDIS_URL`, `BLOBSTORE_TEST_HTTP_URL`, from scripts/test-servers.sh) when set,
/// else private ones.
@Suite("Remote CLI")
struct RemoteCLITests {
    private func run(_ arguments: [String], environment: [String: String] = [:], in directory: TemporaryDirectory)
        throws -> CLIRun
    {
        try runCLI(arguments, environment: environment, in: directory)
    }

    /// A shared server's URL from the environment, or a private server started now.
    private func serverURL(_ variable: String, start: () throws -> ServerProcess, path: String) throws
        -> (String, ServerProcess?)
    {
        let scheme = variable.contains("REDIS") ? "redis" : "http"
        if let url = ProcessInfo.processInfo.environment[variable], !url.isEmpty {
            // Keys are unique per run; an HTTP cache also gets a fresh base path.
            return (scheme == "http" ? url + "/" + UUID().uuidString : url, nil)
        }
        let server = try start()
        return ("\(scheme)://127.0.0.1:\(server.port)\(path)", server)
    }

    private func putThenGetFromAnotherStore(_ url: String) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.child("f")
        let value = sampleBytes(250_000, seed: 9)
        try value.write(to: URL(fileURLWithPath: file))
        let key = "k-" + UUID().uuidString
        let put = try run(["--store", directory.child("A"), "--remote", url, "put", key, file], in: directory)
        #expect(put.code == 0, "\(put.stderr)")
        #expect(put.stderr.isEmpty)
        #expect(String(decoding: put.stdout, as: UTF8.self) == SHA256Hasher.hash(value).hex + "\n")

        let get = try run(["--store", directory.child("B"), "--remote", url, "get", key], in: directory)
        #expect(get.code == 0, "\(get.stderr)")
        #expect(get.stdout == value)

        let stats = try run(["--store", directory.child("B"), "stats", "--json"], in: directory)
        let json = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
        let remote = try #require(json["remote"] as? [String: Any])
        #expect(remote["hits"] as? Int == 1)
        #expect((remote["bytesDown"] as? Int ?? 0) >= value.count)
        let text = try run(["--store", directory.child("A"), "stats"], in: directory)
        let summary = String(decoding: text.stdout, as: UTF8.self)
        #expect(summary.contains("remote uploads:         1"))
        #expect(summary.contains("remote bytes up:        "))
        #expect(summary.contains("remote cool-down skips: 0"))

        // $BLOBSTORE_REMOTE works like --remote.
        let has = try run(
            ["--store", directory.child("C"), "has", key], environment: ["BLOBSTORE_REMOTE": url], in: directory)
        #expect(has.code == 0)
        let verify = try run(["--store", directory.child("B"), "verify"], in: directory)
        #expect(verify.code == 0, "the remote-stats file is part of the store, not a stray file")

        // rm deletes the remote record too: a fresh store no longer finds the key.
        let rm = try run(["--store", directory.child("A"), "--remote", url, "rm", key], in: directory)
        #expect(rm.code == 0, "\(rm.stderr)")
        let gone = try run(["--store", directory.child("D"), "--remote", url, "get", key], in: directory)
        #expect(gone.code == 1)
    }

    @Test func putThenGetFromAnotherStoreThroughRedis() throws {
        let (url, server) = try serverURL("BLOBSTORE_TEST_REDIS_URL", start: { try TestServers.startRedis() }, path: "")
        defer { server?.stop() }
        try putThenGetFromAnotherStore(url)
    }

    @Test func putThenGetFromAnotherStoreThroughNginx() throws {
        let (url, server) = try serverURL(
            "BLOBSTORE_TEST_HTTP_URL", start: { try TestServers.startNginx() }, path: "/cache")
        defer { server?.stop() }
        try putThenGetFromAnotherStore(url)
    }

    @Test func remoteDownCommandsSucceedLocallyWithAWarning() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let url = "redis://127.0.0.1:\(LocalPorts.free())"
        let file = directory.child("f")
        try Data("v".utf8).write(to: URL(fileURLWithPath: file))
        let put = try run(["--store", directory.child("A"), "--remote", url, "put", "k", file], in: directory)
        #expect(put.code == 0)
        #expect(put.stderr.hasPrefix("Warning: Remote \(url): cannot connect."))
        let get = try run(["--store", directory.child("A"), "--remote", url, "get", "k"], in: directory)
        #expect(get.code == 0)
        #expect(get.stdout == Data("v".utf8))
        let missing = try run(["--store", directory.child("A"), "--remote", url, "get", "absent"], in: directory)
        #expect(missing.code == 1)
        let stats = try run(["--store", directory.child("A"), "stats"], in: directory)
        #expect(String(decoding: stats.stdout, as: UTF8.self).contains("remote errors:          2"))
    }

    @Test func badRemoteURLIsAUsageError() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let bad = try run(["--store", directory.child("A"), "--remote", "ftp://host", "has", "k"], in: directory)
        #expect(bad.code == 64)
        #expect(bad.stderr.contains("The remote URL 'ftp://host' is invalid"))
        #expect(!FileManager.default.fileExists(atPath: directory.child("A")))
        let fromEnvironment = try run(
            ["--store", directory.child("A"), "has", "k"], environment: ["BLOBSTORE_REMOTE": "redis://"],
            in: directory)
        #expect(fromEnvironment.code == 64)
        #expect(fromEnvironment.stderr.contains("(from BLOBSTORE_REMOTE)"))
        let elsewhere = try run(["--remote", "redis://h", "gc"], in: directory)
        #expect(elsewhere.code == 64)
        #expect(elsewhere.stderr.contains("'--remote' applies to put, get, has, rm, stats and remote only"))
    }

    @Test func remoteReadOnlyReadsButNeverWrites() throws {
        let (url, server) = try serverURL(
            "BLOBSTORE_TEST_REDIS_URL", start: { try TestServers.startRedis() }, path: "")
        defer { server?.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let file = directory.child("f")
        try Data("shared".utf8).write(to: URL(fileURLWithPath: file))
        let key = "k-" + UUID().uuidString
        let readOnlyPut = try run(
            ["--store", directory.child("A"), "--remote", url, "--remote-read-only", "put", key, file], in: directory)
        #expect(readOnlyPut.code == 0, "\(readOnlyPut.stderr)")
        // Stored locally, not uploaded: another store does not find it.
        let elsewhere = try run(["--store", directory.child("B"), "--remote", url, "has", key], in: directory)
        #expect(elsewhere.code == 1)
        #expect(try run(["--store", directory.child("A"), "has", key], in: directory).code == 0)
        // Uploaded by a plain put, then read (and kept locally) by a read-only get.
        #expect(try run(["--store", directory.child("A"), "--remote", url, "put", key, file], in: directory).code == 0)
        let get = try run(
            ["--store", directory.child("C"), "get", "--remote-read-only", key],
            environment: ["BLOBSTORE_REMOTE": url], in: directory)
        #expect(get.code == 0, "\(get.stderr)")
        #expect(get.stdout == Data("shared".utf8))
        #expect(try run(["--store", directory.child("C"), "has", key], in: directory).code == 0)
        // A read-only rm removes the local entry only: the remote keeps the record.
        #expect(
            try run(["--store", directory.child("C"), "--remote", url, "--remote-read-only", "rm", key], in: directory)
                .code == 0)
        #expect(try run(["--store", directory.child("D"), "--remote", url, "has", key], in: directory).code == 0)
    }

    @Test func remoteOnlyKeepsNoLocalCopy() throws {
        let (url, server) = try serverURL(
            "BLOBSTORE_TEST_HTTP_URL", start: { try TestServers.startNginx() }, path: "/cache")
        defer { server?.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let value = sampleBytes(100_000, seed: 3)
        let file = directory.child("f")
        try value.write(to: URL(fileURLWithPath: file))
        let key = "k-" + UUID().uuidString
        let put = try run(
            ["--store", directory.child("A"), "--remote", url, "--remote-only", "put", key, file, "--json"],
            in: directory)
        #expect(put.code == 0, "\(put.stderr)")
        let printed = try #require(try JSONSerialization.jsonObject(with: put.stdout) as? [String: Any])
        #expect(printed["digest"] as? String == SHA256Hasher.hash(value).hex)
        #expect(printed["size"] as? Int == value.count)
        // Nothing local in A; the remote has it.
        #expect(try run(["--store", directory.child("A"), "has", key], in: directory).code == 1)
        let get = try run(
            ["--store", directory.child("B"), "--remote", url, "--remote-only", "get", key], in: directory)
        #expect(get.code == 0, "\(get.stderr)")
        #expect(get.stdout == value)
        #expect(try run(["--store", directory.child("B"), "has", key], in: directory).code == 1)
        let stats = try run(["--store", directory.child("B"), "stats", "--json"], in: directory)
        let json = try #require(try JSONSerialization.jsonObject(with: stats.stdout) as? [String: Any])
        #expect((json["remote"] as? [String: Any])?["hits"] as? Int == 1)
        #expect(json["entries"] as? Int == 0)
        // rm deletes the remote record; a second rm finds none and exits 1.
        let remove = try run(
            ["--store", directory.child("C"), "--remote", url, "--remote-only", "rm", key], in: directory)
        #expect(remove.code == 0, "\(remove.stderr)")
        #expect(try run(["--store", directory.child("D"), "--remote", url, "has", key], in: directory).code == 1)
        let again = try run(
            ["--store", directory.child("C"), "--remote", url, "--remote-only", "rm", key], in: directory)
        #expect(again.code == 1)
        // Without a remote, the modes and the CA file are usage errors, before any store is made.
        for option in ["--remote-only", "--remote-read-only"] {
            let alone = try run(["--store", directory.child("E"), option, "has", key], in: directory)
            #expect(alone.code == 64)
            #expect(alone.stderr.contains("The option '\(option)' needs a remote"))
        }
        let caAlone = try run(["--store", directory.child("E"), "--remote-ca", file, "get", key], in: directory)
        #expect(caAlone.code == 64)
        #expect(!FileManager.default.fileExists(atPath: directory.child("E")))
    }

    @Test func pingReportsEachShardAndExits69WhenOneIsDown() throws {
        let first = try TestServers.startRedis()
        defer { first.stop() }
        let second = try TestServers.startRedis()
        defer { second.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let shards = "redis://127.0.0.1:\(first.port),127.0.0.1:\(second.port)"
        let ping = try run(["remote", "ping"], environment: ["BLOBSTORE_REMOTE": shards], in: directory)
        #expect(ping.code == 0, "\(ping.stderr)")
        let lines = String(decoding: ping.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("server   ") == true)
        #expect(lines.first?.hasSuffix(" ms      redis://127.0.0.1:\(first.port)") == true, "\(lines)")
        #expect(lines.last?.hasSuffix("redis://127.0.0.1:\(second.port)") == true)
        #expect(try second.redisCalls("ping") == 1)

        second.kill()
        let down = try run(["--remote", shards, "remote", "ping", "--json"], in: directory)
        #expect(down.code == 69)
        let name = "redis://127.0.0.1:\(first.port),redis://127.0.0.1:\(second.port)"
        #expect(down.stderr.contains("1 of 2 nodes of \(name) could not be reached."))
        let report = try #require(try JSONSerialization.jsonObject(with: down.stdout) as? [String: Any])
        #expect(report["remote"] as? String == name)
        let nodes = try #require(report["nodes"] as? [[String: Any]])
        #expect(nodes.map { $0["role"] as? String } == ["server", "server"])
        #expect(nodes[0]["error"] is NSNull)
        #expect(nodes[1]["latencyMilliseconds"] is NSNull)
        #expect((nodes[1]["error"] as? String)?.contains("cannot connect") == true)

        let none = try run(["remote", "ping"], in: directory)
        #expect(none.code == 64)
        #expect(none.stderr.contains("No remote to ping"))
    }

    @Test func pingAndPutOverHTTPSWithTheCAOfTheOptionOrTheEnvironment() throws {
        let certificates = try TestCertificates()
        defer { certificates.remove() }
        let nginx = try TestServers.startNginxTLS(certificates, certificate: .server)
        defer { nginx.stop() }
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let url = "https://127.0.0.1:\(nginx.port)/cache"
        let ping = try run(["--remote", url, "--remote-ca", certificates.caFile, "remote", "ping"], in: directory)
        #expect(ping.code == 0, "\(ping.stderr)")
        #expect(String(decoding: ping.stdout, as: UTF8.self).hasPrefix("server   "))
        let file = directory.child("f")
        try Data("over tls".utf8).write(to: URL(fileURLWithPath: file))
        let put = try run(
            ["--store", directory.child("A"), "put", "k", file],
            environment: ["BLOBSTORE_REMOTE": url, "BLOBSTORE_REMOTE_CA": certificates.caFile], in: directory)
        #expect(put.code == 0)
        #expect(put.stderr.isEmpty, "\(put.stderr)")
        let get = try run(
            ["--store", directory.child("B"), "--remote", url, "--remote-ca", certificates.caFile, "get", "k"],
            in: directory)
        #expect(get.stdout == Data("over tls".utf8), "\(get.stderr)")

        // Another CA: the certificate is refused, the put succeeds locally with a warning, and
        // ping exits 69.
        let refused = try run(
            [
                "--store", directory.child("C"), "--remote", url, "--remote-ca", certificates.otherCAFile, "put", "k",
                file,
            ],
            in: directory)
        #expect(refused.code == 0)
        #expect(refused.stderr.contains("the server's certificate was refused"), "\(refused.stderr)")
        #expect(refused.stderr.contains("The command went on with the local store only."))
        let refusedPing = try run(
            ["remote", "ping"],
            environment: ["BLOBSTORE_REMOTE": url, "BLOBSTORE_REMOTE_CA": certificates.otherCAFile],
            in: directory)
        #expect(refusedPing.code == 69)
        #expect(String(decoding: refusedPing.stdout, as: UTF8.self).contains("unreachable  \(url)  "))
        // A CA file that is not one is a usage error, and says where it came from.
        let notACA = try run(
            ["remote", "ping"], environment: ["BLOBSTORE_REMOTE": url, "BLOBSTORE_REMOTE_CA": file], in: directory)
        #expect(notACA.code == 64)
        #expect(notACA.stderr.contains("cannot be read as PEM certificates"))
        #expect(notACA.stderr.contains("(from BLOBSTORE_REMOTE_CA)"))
    }

    @Test func helpListsRemoteWhereItApplies() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        for subcommand in ["put", "get", "has", "rm", "stats"] {
            let help = try run([subcommand, "--help"], in: directory)
            #expect(String(decoding: help.stdout, as: UTF8.self).contains("--remote <url>"))
        }
        for subcommand in ["put", "get", "has", "rm"] {
            let help = String(decoding: try run([subcommand, "--help"], in: directory).stdout, as: UTF8.self)
            #expect(help.contains("--remote-read-only"))
            #expect(help.contains("--remote-only"))
            #expect(help.contains("--remote-ca <file>"))
        }
        let stats = String(decoding: try run(["stats", "--help"], in: directory).stdout, as: UTF8.self)
        #expect(stats.contains("--remote-ca <file>"))
        #expect(!stats.contains("--remote-only"))
        let remote = String(decoding: try run(["remote", "--help"], in: directory).stdout, as: UTF8.self)
        #expect(remote.contains("USAGE: blobstore remote ping [--json]"))
        #expect(remote.contains("--remote-ca <file>"))
        #expect(!remote.contains("--remote-read-only"))
        let gc = try run(["gc", "--help"], in: directory)
        #expect(!String(decoding: gc.stdout, as: UTF8.self).contains("--remote"))
        let root = try run(["--help"], in: directory)
        #expect(String(decoding: root.stdout, as: UTF8.self).contains("$BLOBSTORE_REMOTE"))
    }
}
