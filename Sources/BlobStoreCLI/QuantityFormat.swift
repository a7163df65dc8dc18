/// Sizes and durations for people: `1.2 GiB`, `310 MiB`, `350ms`, `1h 30m`.
///
/// Machine-readable output (`--json`) carries exact numbers instead.
enum QuantityFormat {
    private static let byteUnits = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]

    /// `bytes` in the largest binary unit that keeps the number at least 1: one decimal below 10
    /// (`1.2 GiB`, `4.0 GiB`), none from 10 (`310 MiB`), exact below 1 KiB (`512 B`).
    static func bytes(_ bytes: UInt64) -> String {
        guard bytes >= 1024 else { return "\(bytes) B" }
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < byteUnits.count - 1 {
            value /= 1024
            unit += 1
        }
        // 1023.96 KiB would show as "1024 KiB": show it as the next unit instead.
        if value.rounded() >= 1024, unit < byteUnits.count - 1 {
            value /= 1024
            unit += 1
        }
        return "\(decimal(value)) \(byteUnits[unit])"
    }

    /// `bytes` for people, then exactly: `1.2 MiB (1234567 bytes)`. The exact count has no
    /// thousands separators, so that it can be given back to `--capacity` as it is.
    static func bytesAndExact(_ bytes: UInt64) -> String {
        "\(self.bytes(bytes)) (\(bytes) bytes)"
    }

    /// `duration` rounded down to a readable precision: `350ms` below a second, `1.2s` below ten,
    /// `12s` below a minute, then the two largest nonzero parts of days, hours, minutes and
    /// seconds (`5m 3s`, `1h 30m`, `7d`). Negative durations show as `0ms`.
    static func duration(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0ms" }
        if seconds == 0 { return "\(attoseconds / 1_000_000_000_000_000)ms" }
        if seconds < 10 {
            let tenths = attoseconds / 100_000_000_000_000_000
            return "\(seconds).\(tenths)s"
        }
        if seconds < 60 { return "\(seconds)s" }
        let parts: [(Int64, String)] = [
            (seconds / 86_400, "d"), (seconds % 86_400 / 3_600, "h"), (seconds % 3_600 / 60, "m"), (seconds % 60, "s"),
        ]
        guard let first = parts.firstIndex(where: { $0.0 > 0 }) else { return "0s" }
        var text = "\(parts[first].0)\(parts[first].1)"
        if first + 1 < parts.count, parts[first + 1].0 > 0 {
            text += " \(parts[first + 1].0)\(parts[first + 1].1)"
        }
        return text
    }

    /// A duration given in seconds, as reports carry it; not finite or negative shows as `0ms`.
    static func duration(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0ms" }
        if seconds < 9e9 { return duration(.nanoseconds(Int64(seconds * 1e9))) }
        return duration(.seconds(Int64(min(seconds, 9e18))))
    }

    /// `duration` in seconds, to the nanosecond, without trailing zeros: `604800`, `0.25`.
    /// Negative durations show as `0`.
    static func exactSeconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0, attoseconds >= 0 else { return "0" }
        let nanoseconds = attoseconds / 1_000_000_000
        guard nanoseconds > 0 else { return "\(seconds)" }
        var digits = String(nanoseconds)
        digits = String(repeating: "0", count: 9 - digits.count) + digits
        while digits.hasSuffix("0") { digits.removeLast() }
        return "\(seconds).\(digits)"
    }

    /// One decimal below 10, none from 10, rounded to nearest.
    private static func decimal(_ value: Double) -> String {
        if value < 9.95 {
            let tenths = Int((value * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }
        return "\(Int(value.rounded()))"
    }
}
