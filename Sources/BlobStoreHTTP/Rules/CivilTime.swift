import Foundation

/// A moment in UTC as calendar fields, converted without a calendar library: the proleptic
/// Gregorian days-from-civil arithmetic (H. Hinnant's algorithms), so that HTTP dates are read
/// and written without a `DateFormatter`, which costs tens of microseconds a call on Linux.
package struct CivilTime: Equatable, Sendable {
    package var year: Int
    /// 1 to 12.
    package var month: Int
    /// 1 to 31.
    package var day: Int
    package var hour: Int
    package var minute: Int
    package var second: Int

    package init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second) = (hour, minute, second)
    }

    /// The fields of `date`, to the whole second (rounded down).
    package init(_ date: Date) {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days since 1970-01-01.
    package var daysSinceEpoch: Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The moment.
    package var date: Date {
        Date(timeIntervalSince1970: TimeInterval(daysSinceEpoch * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// 0 for Sunday to 6 for Saturday.
    package var weekday: Int {
        let days = daysSinceEpoch
        return ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday
    }

    /// Whether the day exists in its month (30 February does not).
    package var isValidDay: Bool {
        guard (1...12).contains(month), day >= 1 else { return false }
        let lengths = [31, isLeapYear ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        return day <= lengths[month - 1]
    }

    private var isLeapYear: Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    package static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    package static let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
}
