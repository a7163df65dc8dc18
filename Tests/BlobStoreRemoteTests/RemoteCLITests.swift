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
        let url = "redis://127.0.0.1:\(TestServers.freePort())"
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
        #expect(elsewhere.stderr.contains("'--remote' applies to put, get, has, rm and stats only"))
    }

    @Test func helpListsRemoteWhereItApplies() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        for subcommand in ["put", "get", "has", "rm", "stats"] {
            let help = try run([subcommand, "--help"], in: directory)
            #expect(String(decoding: help.stdout, as: UTF8.self).contains("--remote <url>"))
        }
        let gc = try run(["gc", "--help"], in: directory)
        #expect(!String(decoding: gc.stdout, as: UTF8.self).contains("--remote"))
        let root = try run(["--help"], in: directory)
        #expect(String(decoding: root.stdout, as: UTF8.self).contains("$BLOBSTORE_REMOTE"))
    }
}
