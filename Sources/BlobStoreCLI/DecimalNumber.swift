/// A non-negative decimal number as typed on the command line, `123` or `1.5`, followed by a unit
/// the caller interprets. The digits are kept as typed, so scaling by a unit is exact and checks
/// for overflow instead of going through `Double`.
struct DecimalNumber: Equatable, Sendable {
    /// The digit values (0–9) before the point; never empty.
    var integerDigits: [UInt8]
    /// The digit values after the point; empty when there is no point.
    var fractionDigits: [UInt8]

    /// Splits `text` into a number and the rest (the unit).
    ///
    /// The number is one or more ASCII digits, optionally followed by `.` and one or more digits.
    /// Signs, spaces, exponents, `1.` and `.5` are not numbers.
    ///
    /// - Returns: The number and the unit, or `nil` when `text` does not start with a number.
    static func scan(_ text: Substring) -> (number: DecimalNumber, unit: Substring)? {
        var integerDigits: [UInt8] = []
        var fractionDigits: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex, let digit = text[index].asciiDigit {
            integerDigits.append(digit)
            index = text.index(after: index)
        }
        guard !integerDigits.isEmpty else { return nil }
        if index < text.endIndex, text[index] == "." {
            index = text.index(after: index)
            while index < text.endIndex, let digit = text[index].asciiDigit {
                fractionDigits.append(digit)
                index = text.index(after: index)
            }
            guard !fractionDigits.isEmpty else { return nil }
        }
        return (DecimalNumber(integerDigits: integerDigits, fractionDigits: fractionDigits), text[index...])
    }

    /// Splits an option value into a number and its unit, or says why it does not start with a
    /// number.
    ///
    /// - Throws: ``QuantityError/empty``; ``QuantityError/negative`` for `-` and a number;
    ///   ``QuantityError/notANumber`` for anything else that ``scan(_:)`` rejects.
    static func split(_ text: String) throws(QuantityError) -> (number: DecimalNumber, unit: Substring) {
        guard !text.isEmpty else { throw .empty }
        if let scanned = scan(text[...]) { return scanned }
        throw text.hasPrefix("-") && scan(text.dropFirst()) != nil ? .negative : .notANumber
    }

    /// Whether there is a nonzero digit after the point.
    var hasFraction: Bool { fractionDigits.contains { $0 != 0 } }

    /// The number times `multiplier`, rounded down, or `nil` when that exceeds `UInt64.max`.
    ///
    /// The fraction is folded in from its last digit, `r = (digit × multiplier + r) / 10`: each
    /// division rounds down, and rounding down inside the next division changes nothing, so the
    /// result is exactly ⌊fraction × multiplier⌋ however many digits there are.
    func scaled(by multiplier: UInt64) -> UInt64? {
        var whole: UInt64 = 0
        for digit in integerDigits {
            let (tens, overflow) = whole.multipliedReportingOverflow(by: 10)
            let (next, carry) = tens.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { return nil }
            whole = next
        }
        var fraction: UInt64 = 0
        for digit in fractionDigits.reversed() {
            let (part, overflow) = UInt64(digit).multipliedReportingOverflow(by: multiplier)
            let (sum, carry) = part.addingReportingOverflow(fraction)
            guard !overflow, !carry else { return nil }
            fraction = sum / 10
        }
        let (scaled, overflow) = whole.multipliedReportingOverflow(by: multiplier)
        let (total, carry) = scaled.addingReportingOverflow(fraction)
        return overflow || carry ? nil : total
    }
}

extension Character {
    /// The value of an ASCII digit `0`–`9`; `nil` for any other character, other scripts' digits
    /// included.
    fileprivate var asciiDigit: UInt8? {
        guard let ascii = asciiValue, ascii >= UInt8(ascii: "0"), ascii <= UInt8(ascii: "9") else { return nil }
        return ascii - UInt8(ascii: "0")
    }
}
