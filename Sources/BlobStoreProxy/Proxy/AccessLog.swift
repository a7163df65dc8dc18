@_spi(BlobStorePackage) import BlobStore
import BlobStoreHTTP
import Foundation

/// One line per request, in the Common Log Format followed by the `Cache-Status` and the time
/// taken: `127.0.0.1 - - [01/Dec/2026:17:00:00 +0000] "GET /a HTTP/1.1" 200 4096 "blobstore; hit" 0.2ms`.
final class AccessLog: Sendable {
    private let handle: FileHandle?
    /// The last timestamp written (with the text around it, ` - - [<time>] "`) and the second
    /// it names: the lines of one second share it.
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
        /// The most bytes written at once: `PIPE_BUF`, so that lines written to a pipe (standard
        /// error) are not interleaved with another thread's.
        fileprivate static let limit = 4096
        /// Room for one write: lines are written straight into it.
        fileprivate let buffer = UnsafeMutableRawPointer.allocate(byteCount: limit, alignment: 1)
        // One loop's alone: exclusive access checked when compiled, not at each line
        // (docs/design.md, "Exclusivity checked when compiled").
        /// The bytes of `buffer` holding lines.
        @exclusivity(unchecked) fileprivate var count = 0
        @exclusivity(unchecked) fileprivate var lastTimestamp: (second: Int, text: String) = (-1, "")

        deinit { buffer.deallocate() }
    }

    /// Records one request (`nil` for one that could not be read), in `batch` when one is given
    /// (written by ``flush(_:)``, or once the lines before it fill 4 KiB), else at once. The
    /// line ends with `cacheStatus`, the member named `cacheName`; the request took
    /// `nanoseconds` (a `UInt64` of the monotonic clock's, not a `Duration`, whose components
    /// are 128-bit arithmetic).
    func record(
        peer: String, request: RequestHead?, status: Int, bytes: Int, cacheStatus: CacheStatus, cacheName: String,
        nanoseconds: UInt64, batch: Batch? = nil
    ) {
        guard let handle else { return }
        let now = Date()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        func latest(_ last: inout (second: Int, text: String)) -> String {
            if last.second != second { last = (second, " - - [" + Self.timestamp(now) + "] \"") }
            return last.text
        }
        // ` - - [<timestamp>] "`: the text around the time is kept with it, one copy per line.
        let date = batch.map { latest(&$0.lastTimestamp) } ?? lastTimestamp.withLock { latest(&$0) }
        let tenths = Int(nanoseconds / 100_000)
        // The fixed parts as literals, single bytes as bytes: no line is made on its own.
        func write<Sink: ByteSink>(to line: inout Sink) {
            line.append(peer)
            line.append(date)
            if let request {
                line.append(request.method)
                line.append(byte: UInt8(ascii: " "))
                line.append(request.target)
                line.append(literal: " HTTP/1.")
                line.append(decimal: request.minorVersion)
            } else {
                line.append(byte: UInt8(ascii: "-"))
            }
            line.append(literal: "\" ")
            line.append(decimal: status)
            line.append(byte: UInt8(ascii: " "))
            line.append(decimal: bytes)
            line.append(literal: " \"")
            cacheStatus.append(name: cacheName, to: &line)
            line.append(literal: "\" ")
            line.append(decimal: tenths / 10)
            line.append(byte: UInt8(ascii: "."))
            line.append(decimal: tenths % 10)
            line.append(literal: "ms\n")
        }
        if let batch {
            // Into the batch's room; when the line does not fit, the lines before it go out
            // and it is written again into the emptied room.
            for _ in 0..<2 {
                var line = ByteCursor(from: batch.buffer + batch.count, to: batch.buffer + Batch.limit)
                write(to: &line)
                if !line.overflowed {
                    batch.count = line.position - batch.buffer
                    return
                }
                guard batch.count > 0 else { break }
                flush(batch)
            }
        }
        // No batch, or a line longer than one write: it goes out alone.
        var line: [UInt8] = []
        line.reserveCapacity(256)
        write(to: &line)
        ProxySyscalls.appendLine(line, to: handle.fileDescriptor)
    }

    /// Writes the lines `batch` holds.
    func flush(_ batch: Batch) {
        guard let handle, batch.count > 0 else { return }
        ProxySyscalls.appendLine(
            UnsafeRawBufferPointer(start: batch.buffer, count: batch.count), to: handle.fileDescriptor)
        batch.count = 0
    }
}
