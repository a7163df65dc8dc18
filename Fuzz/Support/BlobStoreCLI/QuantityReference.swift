// A reference reading of SIZE, DURATION and count values for the Quantity harness, written from
// the grammars in the doc comments of SizeParser, DurationParser and ValueParser<Int>.wholeNumber, and
// computed another way: characters compared by their scalars, units by their UTF-8 bytes, and
// the amount as exact decimal digits (no UInt64 arithmetic that could overflow).

/// A value as the grammar `number = digits ["." digits]`, then a unit, reads it.
import BlobStore

@testable import BlobStoreCLI

enum ReferenceScan {
    case empty
    /// `-` and then a number.
    case negative
    case notANumber
    /// `number` is the text of the number, `unit` whatever follows it.
    case number(integerDigits: [UInt8], fractionDigits: [UInt8], number: String, unit: String)

    init(_ text: String) {
        let characters = Array(text)
        guard !characters.isEmpty else {
            self = .empty
            return
        }
        func digits(from start: Int) -> [UInt8] {
            characters[start...].prefix(while: { isASCIIDigit($0) }).map { UInt8($0.asciiValue! - 48) }
        }
        func number(at start: Int) -> (integer: [UInt8], fraction: [UInt8], end: Int)? {
            let integer = digits(from: start)
            guard !integer.isEmpty else { return nil }
            var end = start + integer.count
            guard end < characters.count, isScalar(characters[end], ".") else { return (integer, [], end) }
            let fraction = digits(from: end + 1)
            guard !fraction.isEmpty else { return nil }
            end += 1 + fraction.count
            return (integer, fraction, end)
        }
        guard let (integer, fraction, end) = number(at: 0) else {
            self = isScalar(characters[0], "-") && number(at: 1) != nil ? .negative : .notANumber
            return
        }
        self = .number(
            integerDigits: integer, fractionDigits: fraction, number: String(characters[..<end]),
            unit: String(characters[end...]))
    }
}

/// A character that is exactly the one scalar `scalar`: `.` followed by a combining mark is
/// another character.
private func isScalar(_ character: Character, _ scalar: Unicode.Scalar) -> Bool {
    character.unicodeScalars.count == 1 && character.unicodeScalars.first == scalar
}

private func isASCIIDigit(_ character: Character) -> Bool {
    character.unicodeScalars.count == 1 && ("0"..."9").contains(character.unicodeScalars.first!)
}

/// What a parser did with a text: a value (as a UInt64 amount) or an error.
enum QuantityOutcome: Equatable, CustomStringConvertible {
    case value(UInt64)
    case error(QuantityError)

    /// Errors compare their texts byte for byte (`String ==` would equate canonically
    /// equivalent units).
    static func == (lhs: QuantityOutcome, rhs: QuantityOutcome) -> Bool {
        switch (lhs, rhs) {
        case (.value(let a), .value(let b)): a == b
        case (.error(.unknownUnit(let a)), .error(.unknownUnit(let b))): Array(a.utf8) == Array(b.utf8)
        case (.error(.tooLarge(let a)), .error(.tooLarge(let b))): Array(a.utf8) == Array(b.utf8)
        case (.error(let a), .error(let b)): a == b
        default: false
        }
    }

    var description: String {
        switch self {
        case .value(let value): "\(value)"
        case .error(.unknownUnit(let unit)): "unknownUnit(\(quoted(unit)))"
        case .error(let error): "\(error)"
        }
    }

    var value: UInt64? {
        if case .value(let value) = self { return value }
        return nil
    }

    var isTooLarge: Bool {
        if case .error(.tooLarge) = self { return true }
        return false
    }
}

/// The outcome of `parse`, with a duration as its nanoseconds.
func outcome<Value>(_ parse: () throws(QuantityError) -> Value, _ amount: (Value) -> UInt64) -> QuantityOutcome {
    do throws(QuantityError) {
        return .value(amount(try parse()))
    } catch {
        return .error(error)
    }
}

func nanosecondsOf(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 else { fail("a negative duration accepted: \(duration)") }
    return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
}

// MARK: - The reference parsers

/// Units of SIZE, lowercased, by their UTF-8 bytes.
let referenceSizeUnits: [[UInt8]: UInt64] = {
    let units: [(String, UInt64)] = [
        ("", 1), ("b", 1), ("k", 1 << 10), ("kb", 1 << 10), ("kib", 1 << 10), ("m", 1 << 20), ("mb", 1 << 20),
        ("mib", 1 << 20), ("g", 1 << 30), ("gb", 1 << 30), ("gib", 1 << 30), ("t", 1 << 40), ("tb", 1 << 40),
        ("tib", 1 << 40),
    ]
    return Dictionary(uniqueKeysWithValues: units.map { (Array($0.0.utf8), $0.1) })
}()

/// Units of DURATION, in nanoseconds, by their UTF-8 bytes (lowercase only).
let referenceDurationUnits: [[UInt8]: UInt64] = {
    let units: [(String, UInt64)] = [
        ("ms", 1_000_000), ("", 1_000_000_000), ("s", 1_000_000_000), ("m", 60_000_000_000),
        ("h", 3_600_000_000_000), ("d", 86_400_000_000_000), ("w", 604_800_000_000_000),
    ]
    return Dictionary(uniqueKeysWithValues: units.map { (Array($0.0.utf8), $0.1) })
}()

func referenceSize(_ text: String) -> QuantityOutcome {
    let scan = ReferenceScan(text)
    guard case .number(let integer, let fraction, _, let unit) = scan else { return scanError(scan) }
    let lowered = unit.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }
    guard let multiplier = referenceSizeUnits[lowered] else { return .error(.unknownUnit(unit)) }
    if multiplier == 1, fraction.contains(where: { $0 != 0 }) { return .error(.notWhole) }
    guard let bytes = floorOfProduct(integer, fraction, multiplier, atMost: UInt64.max) else {
        return .error(.tooLarge(maximum: "16 EiB (18446744073709551615 bytes)"))
    }
    return .value(bytes)
}

func referenceDuration(_ text: String) -> QuantityOutcome {
    let scan = ReferenceScan(text)
    guard case .number(let integer, let fraction, _, let unit) = scan else { return scanError(scan) }
    guard let perUnit = referenceDurationUnits[Array(unit.utf8)] else { return .error(.unknownUnit(unit)) }
    guard let nanoseconds = floorOfProduct(integer, fraction, perUnit, atMost: UInt64(Int64.max)) else {
        return .error(.tooLarge(maximum: "106751 days"))
    }
    return .value(nanoseconds)
}

/// `--max-entries`: digits only (no point, even `1.0`), at most `Int.max`.
func referenceCount(_ text: String) -> QuantityOutcome {
    let scan = ReferenceScan(text)
    guard case .number(let integer, let fraction, _, let unit) = scan else { return scanError(scan) }
    guard unit.isEmpty else { return .error(.unknownUnit(unit)) }
    guard fraction.isEmpty else { return .error(.notWhole) }
    guard let count = floorOfProduct(integer, [], 1, atMost: UInt64(Int.max)) else {
        return .error(.tooLarge(maximum: "\(Int.max)"))
    }
    return .value(count)
}

private func scanError(_ scan: ReferenceScan) -> QuantityOutcome {
    switch scan {
    case .empty: .error(.empty)
    case .negative: .error(.negative)
    case .notANumber, .number: .error(.notANumber)
    }
}

/// ⌊integer.fraction × multiplier⌋, or `nil` when it is more than `limit`. Exact for any number
/// of digits: the digits of `integer` then `fraction` are one integer N = number × 10^k; N ×
/// multiplier is computed digit by digit in base 10, and dropping its last k digits divides by
/// 10^k rounding down.
func floorOfProduct(_ integer: [UInt8], _ fraction: [UInt8], _ multiplier: UInt64, atMost limit: UInt64) -> UInt64? {
    let digits = integer + fraction
    var product = [UInt8](repeating: 0, count: digits.count)
    var carry: UInt64 = 0  // < multiplier, so digit × multiplier + carry < 10 × multiplier
    for index in digits.indices.reversed() {
        let total = UInt64(digits[index]) * multiplier + carry
        product[index] = UInt8(total % 10)
        carry = total / 10
    }
    var high: [UInt8] = []
    while carry > 0 {
        high.append(UInt8(carry % 10))
        carry /= 10
    }
    let whole = (high.reversed() + product).dropLast(fraction.count).drop { $0 == 0 }
    guard whole.count <= 20 else { return nil }
    var value: UInt64 = 0
    for digit in whole {
        let (tens, overflow) = value.multipliedReportingOverflow(by: 10)
        let (next, carry) = tens.addingReportingOverflow(UInt64(digit))
        guard !overflow, !carry else { return nil }
        value = next
    }
    return value <= limit ? value : nil
}

// MARK: - Exact renderings

/// The decimal digits of `numerator / denominator` (a fraction below 1) after the point, at
/// most `maxDigits` of them, rounded up in the last digit when the expansion goes on: the
/// shortest text whose value, times `denominator`, rounds down to exactly `numerator` whenever
/// `denominator < 10^maxDigits`. Empty for 0.
func fractionDigits(_ numerator: UInt64, over denominator: UInt64, maxDigits: Int) -> String {
    var digits: [UInt8] = []
    var remainder = numerator
    while remainder != 0 && digits.count < maxDigits {
        let (high, low) = remainder.multipliedFullWidth(by: 10)
        let (quotient, rest) = denominator.dividingFullWidth((high, low))
        digits.append(UInt8(quotient))
        remainder = rest
    }
    if remainder != 0 {
        var index = digits.count - 1
        while digits[index] == 9 {
            digits[index] = 0
            index -= 1
        }
        digits[index] += 1
    }
    return String(decoding: digits.map { $0 + 48 }, as: UTF8.self)
}

/// `amount` in `unit`s of `perUnit`: `"12"`, or `"12.345"` with ``fractionDigits(_:over:maxDigits:)``.
func exactText(_ amount: UInt64, perUnit: UInt64, unit: String) -> String {
    let fraction = fractionDigits(amount % perUnit, over: perUnit, maxDigits: 30)
    return "\(amount / perUnit)" + (fraction.isEmpty ? "" : ".\(fraction)") + unit
}
