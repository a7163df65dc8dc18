/// Why ``SizeParser`` or ``DurationParser`` rejected a value. The ``description`` completes
/// "The value '…' is invalid for '--option <…>': ".
public enum QuantityError: Error, Equatable, Sendable, CustomStringConvertible {
    case empty
    /// Starts with `-` followed by a number.
    case negative
    /// Does not start with digits (signs, spaces, `.5`, `1.`, words).
    case notANumber
    /// The text after the number is not a unit the parser knows.
    case unknownUnit(String)
    /// A fraction where only whole numbers make sense: bytes without a unit (`1.5`), a count.
    case notWhole
    /// The value does not fit; the associated text names the largest value accepted.
    case tooLarge(maximum: String)

    public var description: String {
        switch self {
        case .empty: "it is empty"
        case .negative: "it is negative"
        case .notANumber: "it does not start with a number"
        case .unknownUnit(let unit): "'\(unit)' is not a unit"
        case .notWhole: "it must be a whole number"
        case .tooLarge(let maximum): "it is more than \(maximum)"
        }
    }
}
