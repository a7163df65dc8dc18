@_spi(BlobStorePackage) import BlobStore
import BlobStoreHTTP
import Foundation

/// One line per request, in the Common Log Format followed by the `Cache-Status` and the time
/// taken: `127.0.0.1 - - [01/Dec/2026:17:00:00 +0000] "GET /a HTTP/1.1" 200 4096 "blobstore; hit" 0.2ms`.
final class AccessLog: Sendable {
    private let handle: FileHandle?
    /// The last timestamp written and the second it names: the lines of one second share it.
    private let lastTimestamp = ThreadLock<(second: Int, text: String)>((-1, ""))

    /// A log written to `handle`; `nil` logs nothing.
    init(_ handle: FileHandle?) {
        self.handle = handle
    }

    /// Whether lines are written: a request's line need not be made otherwise.
    var isOn: Bool { handle != nil }

    /// `01/Dec/2026:17:00:00 +0000`.
    static func timestamp(_ date: Date) -> String {
        let time = CivilTime(date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(time.day))/\(CivilTime.monthNames[time.month - 1])/\(time.year):"
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) +0000"
    }

    /// Lines kept by one event loop's thread and written together at its sweeps, about four
    /// times a second, or when they fill a write: no system call per request. Used by that
    /// thread only, which keeps its own copy of the last timestamp too.
    final class Batch: @unchecked Sendable {
        // One loop's alone: exclusive access checked when compiled, not at each line
        // (docs/design.md, "Exclusivity checked when compiled").
        @exclusivity(unchecked) fileprivate var bytes: [UInt8] = []
        @exclusivity(unchecked) fileprivate var lastTimestamp: (second: Int, text: String) = (-1, "")
        /// The most bytes written at once: `PIPE_BUF`, so that lines written to a pipe (standard
        /// error) are not interleaved with another thread's.
        fileprivate static let limit = 4096
    }

    /// Records one request (`nil` for one that could not be read), in `batch` when one is given
    /// (written by ``flush(_:)``, or once the lines before it fill 4 KiB), else at once.
    /// `cacheStatus` appends the line's `Cache-Status` member; the request took `nanoseconds`
    /// (a `UInt64` of the monotonic clock's, not a `Duration`, whose components are 128-bit
    /// arithmetic).
    func record(
        peer: String, request: RequestHead?, status: Int, bytes: Int, cacheStatus: (inout [UInt8]) -> Void,
        nanoseconds: UInt64, batch: Batch? = nil
    ) {
        guard let handle else { return }
        let now = Date()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        func latest(_ last: inout (second: Int, text: String)) -> String {
            if last.second != second { last = (second, Self.timestamp(now)) }
            return last.text
        }
        let date = batch.map { latest(&$0.lastTimestamp) } ?? lastTimestamp.withLock { latest(&$0) }
        let tenths = Int(nanoseconds / 100_000)
        // Written straight into the batch: no line is made on its own; the fixed parts as
        // literals, copied at once.
        func write(to line: inout [UInt8]) {
            func add(_ part: String) { HeadWriter.append(part, to: &line) }
            func add(literal: StaticString) { HeadWriter.append(literal: literal, to: &line) }
            func add(_ number: Int) { HeadWriter.append(decimal: number, to: &line) }
            add(peer)
            add(literal: " - - [")
            add(date)
            add(literal: "] \"")
            if let request {
                add(request.method)
                line.append(UInt8(ascii: " "))
                add(request.target)
                add(literal: " HTTP/1.")
                add(request.minorVersion)
            } else {
                line.append(UInt8(ascii: "-"))
            }
            add(literal: "\" ")
            add(status)
            line.append(UInt8(ascii: " "))
            add(bytes)
            add(literal: " \"")
            cacheStatus(&line)
            add(literal: "\" ")
            add(tenths / 10)
            line.append(UInt8(ascii: "."))
            add(tenths % 10)
            add(literal: "ms\n")
        }
        guard let batch else {
            var line: [UInt8] = []
            line.reserveCapacity(256)
            write(to: &line)
            return ProxySyscalls.appendLine(line, to: handle.fileDescriptor)
        }
        let start = batch.bytes.count
        write(to: &batch.bytes)
        // The lines before this one go out once it would take the batch past one write.
        guard batch.bytes.count > Batch.limit, start > 0 else { return }
        batch.bytes.withUnsafeBytes {
            ProxySyscalls.appendLine(UnsafeRawBufferPointer(rebasing: $0[..<start]), to: handle.fileDescriptor)
        }
        batch.bytes.removeSubrange(..<start)
    }

    /// Writes the lines `batch` holds.
    func flush(_ batch: Batch) {
        guard let handle, !batch.bytes.isEmpty else { return }
        ProxySyscalls.appendLine(batch.bytes, to: handle.fileDescriptor)
        batch.bytes.removeAll(keepingCapacity: true)
    }
}
