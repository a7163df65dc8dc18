import Foundation
import Synchronization

/// One line per request, in the Common Log Format followed by the `Cache-Status` and the time
/// taken: `127.0.0.1 - - [01/Dec/2026:17:00:00 +0000] "GET /a HTTP/1.1" 200 4096 "blobstore; hit" 0.2ms`.
final class AccessLog: Sendable {
    private let handle: FileHandle?
    private let lock = Mutex<Void>(())
    private let formatter: Mutex<DateFormatter>

    /// A log written to `handle`; `nil` logs nothing.
    init(_ handle: FileHandle?) {
        self.handle = handle
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "dd/MMM/yyyy:HH:mm:ss Z"
        self.formatter = Mutex(formatter)
    }

    /// Records one request.
    func record(
        peer: String, requestLine: String, status: Int, bytes: Int, cacheStatus: String, duration: Duration
    ) {
        guard let handle else { return }
        let date = formatter.withLock { $0.string(from: Date()) }
        let milliseconds = Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1000
        let line =
            "\(peer) - - [\(date)] \"\(requestLine)\" \(status) \(bytes) \"\(cacheStatus)\" "
            + String(format: "%.1fms", milliseconds) + "\n"
        lock.withLock { _ in handle.write(Data(line.utf8)) }
    }
}
