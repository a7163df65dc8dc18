import BlobStore
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

    /// `01/Dec/2026:17:00:00 +0000`.
    static func timestamp(_ date: Date) -> String {
        let time = CivilTime(date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(time.day))/\(CivilTime.monthNames[time.month - 1])/\(time.year):"
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) +0000"
    }

    /// Records one request.
    func record(
        peer: String, requestLine: String, status: Int, bytes: Int, cacheStatus: String, duration: Duration
    ) {
        guard let handle else { return }
        let now = Date()
        let second = Int(now.timeIntervalSince1970.rounded(.down))
        let date = lastTimestamp.withLock { last in
            if last.second != second { last = (second, Self.timestamp(now)) }
            return last.text
        }
        let tenths = duration.components.seconds * 10_000 + duration.components.attoseconds / 100_000_000_000_000
        let line =
            "\(peer) - - [\(date)] \"\(requestLine)\" \(status) \(bytes) \"\(cacheStatus)\" "
            + "\(tenths / 10).\(tenths % 10)ms\n"
        ProxySyscalls.appendLine(line, to: handle.fileDescriptor)
    }
}
