import BlobStoreTestKit
import Foundation
import HTTPTestServer
import Testing

@testable import BlobStoreCLI

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("blobstore fetch")
struct FetchCLITests {
    @Test("Fetching a max-age=600 URL twice makes one request: miss, then fresh hit")
    func maxAgeTwiceIsOneRequest() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let target = "/x?cc=max-age%3D600&body=cached"
            let store = scratch.child("store")
            let first = try blobstore(["fetch", "--store", store, server.url(target).absoluteString], in: scratch)
            let second = try blobstore(["fetch", "--store", store, server.url(target).absoluteString], in: scratch)
            #expect(first.status == 0)
            #expect(first.stdout == "cached")
            #expect(first.stderr == "miss\n")
            #expect(second.status == 0)
            #expect(second.stdout == "cached")
            #expect(second.stderr == "fresh hit\n")
            #expect(try await server.counts(target).requests == 1)
        }
    }

    @Test("Fetching a no-store URL twice makes two requests")
    func noStoreTwiceIsTwoRequests() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let target = "/n?cc=no-store"
            let store = scratch.child("store")
            let output = scratch.child("body")
            for _ in 0..<2 {
                let run = try blobstore(
                    ["fetch", "--store", store, server.url(target).absoluteString, "-o", output], in: scratch)
                #expect(run.status == 0)
                #expect(run.stderr == "miss\n")
                #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == Data("hello".utf8))
            }
            #expect(try await server.counts(target).requests == 2)
            let list = try blobstore(["ls", "--store", store], in: scratch)
            #expect(list.stdout.isEmpty)
        }
    }

    @Test("A stale response with an ETag is revalidated: revalidated hit")
    func revalidatedHit() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let target = "/e?cc=no-cache&etag=%22e1%22&body=same"
            let arguments = [
                "fetch", "--store", scratch.child("store"), "--min-disk-lifetime", "0s",
                server.url(target).absoluteString,
            ]
            let first = try blobstore(arguments, in: scratch)
            let second = try blobstore(arguments, in: scratch)
            #expect(first.stderr == "miss\n")
            #expect(second.stderr == "revalidated hit\n")
            #expect(second.stdout == "same")
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("Headers select the Vary variant")
    func headersSelectVariant() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let target = "/v?cc=max-age%3D600&vary=Accept-Language&body=v"
            let store = scratch.child("store")
            func fetch(_ language: String) throws -> Execution {
                try blobstore(
                    [
                        "fetch", "--store", store, "--header", "Accept-Language: \(language)",
                        server.url(target).absoluteString,
                    ],
                    in: scratch)
            }
            #expect(try fetch("de").stdout == "v Accept-Language=de")
            #expect(try fetch("fr").stdout == "v Accept-Language=fr")
            let again = try fetch("de")
            #expect(again.stdout == "v Accept-Language=de")
            #expect(again.stderr == "fresh hit\n")
            #expect(try await server.counts(target).requests == 2)
        }
    }

    @Test("-q leaves out the outcome line; the body is written")
    func quietLeavesOutTheOutcome() async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let url = server.url("/q?cc=max-age%3D600&body=quiet").absoluteString
            let run = try blobstore(["fetch", "-q", "--store", scratch.child("store"), url], in: scratch)
            #expect(run.status == 0)
            #expect(run.stdout == "quiet")
            #expect(run.stderr.isEmpty)
        }
    }

    @Test("A 4xx or 5xx status exits 69 and writes nothing, unless --allow-http-errors", arguments: [404, 503])
    func httpErrorStatus(_ status: Int) async throws {
        let server = try TestServer()
        defer { server.stop() }
        try await withTemporaryDirectoryAsync { scratch in
            let url = server.url("/s?status=\(status)&body=oops").absoluteString
            let store = scratch.child("store")
            let output = scratch.child("body")
            let failed = try blobstore(["fetch", "--store", store, url, "-o", output], in: scratch)
            #expect(failed.status == 69)
            #expect(
                failed.stderr
                    == "miss\nError: \(url) answered with status \(status); the body was not written. Pass "
                    + "--allow-http-errors to write it and exit 0.\n")
            #expect(!FileManager.default.fileExists(atPath: output))
            let toStdout = try blobstore(["fetch", "--store", store, url], in: scratch)
            #expect(toStdout.status == 69 && toStdout.standardOutput.isEmpty)

            let allowed = try blobstore(["fetch", "--store", store, "--allow-http-errors", url], in: scratch)
            #expect(allowed.status == 0)
            #expect(allowed.stdout == "oops")
            #expect(allowed.stderr.hasSuffix("\n") && !allowed.stderr.contains("Error"))
        }
    }

    @Test("A request that fails exits 74 with an error")
    func failedRequest() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["fetch", "--store", scratch.child("store"), "http://127.0.0.1:1/"], in: scratch)
            #expect(run.status == 74)
            #expect(run.stderr.hasPrefix("Error: The request to http://127.0.0.1:1/ failed"))
        }
    }

    @Test("Parsing fetch")
    func parsing() throws {
        let url = "http://h/x"
        #expect(
            try ArgumentParser.parse(["fetch", url]).command == .run(FetchCommand(url: url)))
        let full = try ArgumentParser.parse([
            "fetch", url, "-o", "f", "--header", "A: 1", "--header=B:2", "--min-disk-lifetime", "1m",
            "--allow-http-errors",
        ])
        #expect(
            full.command
                == .run(
                    FetchCommand(
                        url: url, output: "f", headers: [.init(name: "A", value: "1"), .init(name: "B", value: "2")],
                        minimumDiskLifetime: .seconds(60), allowsHTTPErrors: true)))
        for bad in [["fetch"], ["fetch", "ftp://h/"], ["fetch", "h/x"], ["fetch", url, "--header", "nocolon"]] {
            #expect(throws: CommandLineError.self) { try ArgumentParser.parse(bad) }
        }
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["fetch", url, "--header", "Bad Name: v"]) }
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["get", "k", "--header", "A: 1"]) }
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["get", "k", "--allow-http-errors"]) }
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["fetch", url, "--allow-http-errors=1"]) }
    }

    @Test("fetch --help tells what it does and what it prints")
    func help() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["fetch", "--help"], in: scratch)
            #expect(run.status == 0)
            #expect(run.stdout.contains("'fresh hit', 'revalidated hit' or 'miss'"))
            #expect(run.stdout.contains("--header '<name>: <value>'"))
            #expect(run.stdout.contains("--min-disk-lifetime <duration>"))
            #expect(run.stdout.contains("\n  --allow-http-errors     Write the body of a 4xx or 5xx response"))
        }
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards.
private func withTemporaryDirectoryAsync(_ body: (TemporaryDirectory) async throws -> Void) async throws {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    try await body(directory)
}
