import Foundation

/// HTTP dates (RFC 9110 §5.6.7): the preferred IMF-fixdate and the two obsolete forms a
/// recipient must still accept, read and written by hand (`CivilTime`), fast and thread-safe.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` or
    /// `Sun Nov  6 08:49:37 1994`, as a date; `nil` for anything else.
    ///
    /// Month and day names are read without regard to case; the day name is not checked against
    /// the date. Parts are separated by exactly one space, as the grammar says. A two-digit year more than 50 years in the future is read as the latest past
    /// year with those digits (RFC 9110 §5.6.7). A field out of range (`32 Jan`, `25:00:00`, a
    /// 29 February outside a leap year) makes the text invalid.
    public static func parse(_ text: String) -> Date? {
        // Over the string's own UTF-8 bytes: a stored response's dates are read at each refresh.
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// ``parse(_:)`` over the bytes of the text.
    private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        var scanner = Scanner(bytes)
        scanner.skipSpaces()
        guard scanner.letters() >= 3 else { return nil }
        if scanner.take(UInt8(ascii: ",")) {
            guard scanner.space(), let day = scanner.number(digits: 2...2) else { return nil }
            if scanner.take(UInt8(ascii: "-")) {
                // rfc850-date: Sunday, 06-Nov-94 08:49:37 GMT
                guard let month = scanner.month(), scanner.take(UInt8(ascii: "-")),
                    let shortYear = scanner.number(digits: 2...2), scanner.space(), let time = scanner.time(),
                    scanner.space(), scanner.word("GMT")
                else { return nil }
                return scanner.atEnd ? make(fullYear(shortYear), month, day, time) : nil
            }
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT (one space between parts, RFC 9110 §5.6.7)
            guard scanner.space(), let month = scanner.month(), scanner.space(),
                let year = scanner.number(digits: 4...4), scanner.space(), let time = scanner.time(),
                scanner.space(), scanner.word("GMT")
            else { return nil }
            return scanner.atEnd ? make(year, month, day, time) : nil
        }
        // asctime-date: Sun Nov  6 08:49:37 1994 (the day is two digits, or a space and one)
        guard scanner.space(), let month = scanner.month(), scanner.take(UInt8(ascii: " ")) else { return nil }
        let day: Int?
        if scanner.take(UInt8(ascii: " ")) {
            day = scanner.number(digits: 1...1)
        } else {
            day = scanner.number(digits: 2...2)
        }
        guard let day, scanner.space(), let time = scanner.time(), scanner.space(),
            let year = scanner.number(digits: 4...4)
        else { return nil }
        return scanner.atEnd ? make(year, month, day, time) : nil
    }

    /// `date` as an IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ date: Date) -> String {
        let time = CivilTime(date)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let year = String(time.year)
        return "\(CivilTime.dayNames[time.weekday]), \(two(time.day)) \(CivilTime.monthNames[time.month - 1]) "
            + "\(String(repeating: "0", count: max(0, 4 - year.count)))\(year) "
            + "\(two(time.hour)):\(two(time.minute)):\(two(time.second)) GMT"
    }

    private static func make(_ year: Int, _ month: Int, _ day: Int, _ time: (Int, Int, Int)) -> Date? {
        let civil = CivilTime(year: year, month: month, day: day, hour: time.0, minute: time.1, second: time.2)
        guard civil.isValidDay, time.0 < 24, time.1 < 60, time.2 <= 60 else { return nil }
        return civil.date
    }

    /// The year of a two-digit rfc850 year: this century's, or the last one's when that would be
    /// more than 50 years ahead.
    private static func fullYear(_ shortYear: Int) -> Int {
        let now = CivilTime(Date()).year
        let candidate = now - now % 100 + shortYear
        return candidate > now + 50 ? candidate - 100 : candidate
    }

    /// A cursor over the bytes of a date.
    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        var atEnd: Bool {
            var rest = index
            while rest < bytes.count, bytes[rest] == UInt8(ascii: " ") || bytes[rest] == UInt8(ascii: "\t") {
                rest += 1
            }
            return rest == bytes.count
        }

        /// Skips spaces and tabs; `true`, so that it reads in a condition list.
        @discardableResult
        mutating func skipSpaces() -> Bool {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\t") {
                index += 1
            }
            return true
        }

        /// Exactly one space.
        mutating func space() -> Bool {
            guard take(UInt8(ascii: " ")) else { return false }
            return index == bytes.count || bytes[index] != UInt8(ascii: " ")
        }

        /// Skips letters (a day name); returns how many.
        mutating func letters() -> Int {
            let start = index
            while index < bytes.count, Self.isLetter(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A number of `digits` digits.
        mutating func number(digits: ClosedRange<Int>) -> Int? {
            var value = 0
            var count = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]),
                count < digits.upperBound
            {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
                count += 1
            }
            if index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { return nil }
            return digits.contains(count) ? value : nil
        }

        /// A three-letter month name, 1 to 12.
        mutating func month() -> Int? {
            guard index + 3 <= bytes.count else { return nil }
            let name = (
                HTTPHeaders.lowercase(bytes[index]), HTTPHeaders.lowercase(bytes[index + 1]),
                HTTPHeaders.lowercase(bytes[index + 2])
            )
            guard let month = Self.months.firstIndex(where: { $0 == name }) else { return nil }
            index += 3
            if index < bytes.count, Self.isLetter(bytes[index]) { return nil }
            return month + 1
        }

        /// The three bytes of each month's name, lowercased: compared as three bytes, not as
        /// strings, at every date read.
        private static let months = CivilTime.monthNames.map { name in
            let bytes = Array(name.lowercased().utf8)
            return (bytes[0], bytes[1], bytes[2])
        }

        /// `HH:MM:SS`.
        mutating func time() -> (Int, Int, Int)? {
            guard let hour = number(digits: 2...2), take(UInt8(ascii: ":")), let minute = number(digits: 2...2),
                take(UInt8(ascii: ":")), let second = number(digits: 2...2)
            else { return nil }
            return (hour, minute, second)
        }

        /// `word`, in any case, not followed by a letter.
        mutating func word(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count,
                word.withUTF8Buffer({
                    HTTPHeaders.sameBytes(UnsafeBufferPointer(rebasing: bytes[index..<(index + count)]), $0)
                })
            else { return false }
            index += count
            return index == bytes.count || !Self.isLetter(bytes[index])
        }

        static func isLetter(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
        }
    }
}
