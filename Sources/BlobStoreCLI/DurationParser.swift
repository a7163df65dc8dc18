/// Parses a DURATION option value (`--max-age`, `--grace`): a number with a unit.
///
/// ```
/// duration = number [unit]
/// number   = digits ["." digits]
/// unit     = "ms" | "s" | "m" | "h" | "d" | "w"      (none: seconds)
/// ```
///
/// Units are lowercase only (`M` could be read as months). A day is 86,400 seconds and a week 7
/// days. A fraction finer than a nanosecond is rounded down. The longest duration accepted is
/// `Int64.max` nanoseconds (about 106,751 days). Total: any string either parses or throws.
public enum DurationParser {
    /// The accepted forms, for an error message: completes "Use …".
    public static let forms =
        "a number with a unit ms, s, m, h, d or w (a plain number is seconds), e.g. 500ms, 30s, 15m, 2h or 7d"

    /// Nanoseconds per unit.
    private static let units: [Substring: UInt64] = [
        "ms": 1_000_000,
        "": 1_000_000_000, "s": 1_000_000_000,
        "m": 60 * 1_000_000_000,
        "h": 3_600 * 1_000_000_000,
        "d": 86_400 * 1_000_000_000,
        "w": 604_800 * 1_000_000_000,
    ]

    /// Parses `text`.
    ///
    /// - Parameter text: The value as typed, e.g. `15m`.
    /// - Returns: The duration.
    /// - Throws: ``QuantityError`` when `text` is empty, negative, not a number, has an unknown
    ///   unit, or is longer than `Int64.max` nanoseconds.
    public static func parse(_ text: String) throws(QuantityError) -> Duration {
        let (number, unit) = try DecimalNumber.split(text)
        guard let nanosecondsPerUnit = units[unit] else { throw .unknownUnit(String(unit)) }
        guard let nanoseconds = number.scaled(by: nanosecondsPerUnit), nanoseconds <= UInt64(Int64.max) else {
            throw .tooLarge(maximum: "\(UInt64(Int64.max) / 86_400_000_000_000) days")
        }
        return .nanoseconds(Int64(nanoseconds))
    }
}
