import BlobStore
import BlobStoreTestKit
import Foundation
import HTTPTestServer
import Testing

/// `blobstore fetch` with a body far larger than the memory it may use.
@Suite("blobstore fetch: large bodies")
struct FetchStreamingTests {
    /// The size of the large body: 1 GiB, or `BLOBSTORE_FETCH_LARGE_BYTES`.
    static let largeBytes =
        ProcessInfo.processInfo.environment["BLOBSTORE_FETCH_LARGE_BYTES"].flatMap(Int.init) ?? 1 << 30

    /// The most a large fetch's peak resident memory may exceed a small one's: 32 MiB.
    static let boundedGrowth = 32 << 20

    @Test("A 1 GiB body is fetched, stored and answered again without being held in memory, every byte checked")
    func largeBodyWithFlatMemory() async throws {
        let server = try TestServer()
        defer { server.stop() }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        let store = scratch.child("store")
        let output = scratch.child("body")
        // What a fetch of a small body takes: the baseline the large one is held to.
        let small = try blobstore(
            ["fetch", "--store", store, server.url("/s?cc=max-age%3D600&size=1000").absoluteString, "-o", output],
            in: scratch)
        #expect(small.status == 0)

        let url = server.url("/large?cc=max-age%3D600&stream=\(Self.largeBytes)").absoluteString
        let expected = Self.patternDigest(Self.largeBytes)
        for outcome in ["miss", "fresh hit"] {
            let run = try blobstore(["fetch", "--store", store, url, "-o", output], in: scratch)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "\(outcome)\n")
            #expect(try SHA256Hasher.hash(contentsOf: URL(fileURLWithPath: output)) == expected)
            // Not the body: what a small fetch needed plus buffers. The body passes through the
            // client's 64 KiB receive buffer and the store's 1 MiB pieces, and the socket is not
            // read while a piece is being written, so a loaded machine slows the server instead
            // of filling memory (docs/http.md).
            let growth = run.peakResidentBytes - small.peakResidentBytes
            print(
                "fetch of \(Self.largeBytes) bytes, \(outcome): peak resident memory \(growth) bytes over a small fetch"
            )
            #expect(
                growth < Self.boundedGrowth,
                "\(outcome): peak \(run.peakResidentBytes) bytes against \(small.peakResidentBytes)")
        }
        #expect(try await server.counts("/large?cc=max-age%3D600&stream=\(Self.largeBytes)").requests == 1)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: store + "/tmp")
        #expect(leftovers.isEmpty, "left in tmp/: \(leftovers)")
    }

    /// The SHA-256 of the first `size` bytes the test server streams (its 64 KiB pattern,
    /// repeated).
    private static func patternDigest(_ size: Int) -> SHA256Digest {
        let block = TestServer.pattern(1 << 20)
        let hasher = SHA256Hasher()
        var left = size
        block.withUnsafeBytes { bytes in
            while left > 0 {
                let count = min(left, bytes.count)
                hasher.update(UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
                left -= count
            }
        }
        return hasher.finalize()
    }
}
