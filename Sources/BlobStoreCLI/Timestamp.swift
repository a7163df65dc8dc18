import Foundation

/// Times as the journal and manifest store them, milliseconds since the Unix epoch, for people
/// and JSON: ISO 8601 in UTC with milliseconds, `2026-12-01T14:30:00.123Z`, exact (the
/// milliseconds are written from the integer, not through a `Double`).
enum Timestamp {
    static func iso8601(milliseconds: Int64) -> String {
        let (seconds, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        // Round toward minus infinity, so that -1 ms is 23:59:59.999 the day before.
        let wholeSeconds = remainder < 0 ? seconds - 1 : seconds
        let millis = remainder < 0 ? remainder + 1000 : remainder
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(wholeSeconds)))
        let digits = String(millis)
        return text.dropLast() + "." + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
