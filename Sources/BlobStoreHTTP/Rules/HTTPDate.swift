import Foundation
import Synchronization

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate and the two obsolete forms a
/// recipient must still accept.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` or
    /// `Sun Nov  6 08:49:37 1994`, as a date; `nil` for anything else.
    public static func parse(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        return formatters.withLock { formatters in
            formatters.lazy.compactMap { $0.date(from: trimmed) }.first
        }
    }

    /// `date` as an IMF-fixdate.
    public static func format(_ date: Date) -> String {
        formatters.withLock { $0[0].string(from: date) }
    }

    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss 'GMT'",
        "EEEE, dd-MMM-yy HH:mm:ss 'GMT'",
        "EEE MMM d HH:mm:ss yyyy",
    ]

    /// One formatter per form, IMF-fixdate first, made once (making one costs far more than a
    /// parse) and used under the lock, since a `DateFormatter` is not safe to share between
    /// threads.
    private static let formatters = Mutex<[DateFormatter]>(
        formats.map { format in
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            return formatter
        })
}
