import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreProxy

/// The access log's batch: lines are written straight into it, and go out whole, a write of at
/// most 4 KiB at a time (`PIPE_BUF`: a pipe never interleaves them with another thread's).
@Suite("Caching proxy: the access log's batches")
struct AccessLogTests {
    /// Runs `body` with a log into a new file, a batch, and what the file holds so far.
    private func withLog(_ body: (AccessLog, AccessLog.Batch, () throws -> [UInt8]) throws -> Void) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.child("access.log")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try body(AccessLog(handle), AccessLog.Batch()) { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
    }

    @Test("A batch writes whole lines, at most 4 KiB at once, in order; the flush writes the rest")
    func batchesWriteWholeLines() throws {
        try withLog { log, batch, written throws in
            var count = 0
            // Lines of about 120 bytes: until the first write.
            while try written().isEmpty {
                count += 1
                let request = RequestHead(
                    method: "GET", target: "/line/\(count)", minorVersion: 1, headers: [:])
                log.record(
                    peer: "127.0.0.1", request: request, status: 200, bytes: count,
                    cacheStatus: CacheStatus(hit: true, ttl: count), cacheName: "blobstore",
                    nanoseconds: 1_000_000,
                    batch: batch)
                #expect(count < 100, "nothing written after \(count) lines")
                if count >= 100 { return }
            }
            let first = try written()
            #expect(first.count <= 4096 && first.last == UInt8(ascii: "\n"), "\(first.count) bytes")
            let firstLines = String(decoding: first, as: UTF8.self).split(separator: "\n")
            #expect(firstLines.count == count - 1, "the line that passed 4 KiB waits for the next write")
            log.flush(batch)
            let lines = String(decoding: try written(), as: UTF8.self).split(separator: "\n")
            #expect(lines.count == count)
            for (index, line) in lines.enumerated() {
                #expect(
                    line.hasPrefix("127.0.0.1 - - [")
                        && line.contains("\"GET /line/\(index + 1) HTTP/1.1\" 200 \(index + 1) ")
                        && line.hasSuffix("\"blobstore; hit; ttl=\(index + 1)\" 1.0ms"), "\(line)")
            }
        }
    }

    @Test("A line longer than one write goes out alone, after the lines before it, as an unbatched line")
    func longLineGoesAlone() throws {
        try withLog { log, batch, bytes throws in
            func written() throws -> String { String(decoding: try bytes(), as: UTF8.self) }
            let long = "/" + String(repeating: "a", count: 5000)
            let status = CacheStatus(
                forward: "uri-miss", forwardStatus: 200, stored: true, detail: "a \"quoted\" \\ detail")
            func record(_ target: String, batch: AccessLog.Batch?) {
                log.record(
                    peer: "::1", request: RequestHead(method: "GET", target: target, minorVersion: 0, headers: [:]),
                    status: 200, bytes: 12, cacheStatus: status, cacheName: "edge", nanoseconds: 12_345_678_901,
                    batch: batch)
            }
            record("/short", batch: batch)
            #expect(try written().isEmpty)
            record(long, batch: batch)
            let lines = try written().split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 3 && lines[2].isEmpty)
            #expect(lines.first?.contains("\"GET /short HTTP/1.0\" 200 12 ") == true)
            #expect(lines.dropFirst().first?.contains("\"GET \(long) HTTP/1.0\"") == true)
            // The batch is empty again; an unbatched line is the same line.
            log.flush(batch)
            #expect(try written().split(separator: "\n").count == 2)
            record("/short", batch: nil)
            let all = try written().split(separator: "\n")
            #expect(all.count == 3)
            let suffix =
                " 200 12 \"edge; fwd=uri-miss; fwd-status=200; stored; detail=\"a \\\"quoted\\\" \\\\ detail\"\" 12345.6ms"
            for line in all { #expect(line.hasSuffix(suffix), "\(line)") }
            // The same line but for its time, which may have passed a second.
            #expect(all[0].drop { $0 != "]" } == all[2].drop { $0 != "]" })
        }
    }
}
