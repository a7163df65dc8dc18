import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreProxy

/// The access log's batch: lines are written straight into it, and go out whole, a write of at
/// most 4 KiB at a time (`PIPE_BUF`: a pipe never interleaves them with another thread's).
@Suite("Caching proxy: the access log's batches")
struct AccessLogTests {
    @Test("A batch writes whole lines, at most 4 KiB at once, in order; the flush writes the rest")
    func batchesWriteWholeLines() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let path = directory.child("access.log")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let log = AccessLog(handle)
        let batch = AccessLog.Batch()
        func written() throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }
        var count = 0
        // Lines of about 120 bytes: until the first write.
        while try written().isEmpty {
            count += 1
            let request = RequestHead(
                method: "GET", target: "/line/\(count)", minorVersion: 1, headers: [:])
            log.record(
                peer: "127.0.0.1", request: request, status: 200, bytes: count,
                cacheStatus: { $0.append(contentsOf: "blobstore; hit; ttl=\(count)".utf8) },
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
