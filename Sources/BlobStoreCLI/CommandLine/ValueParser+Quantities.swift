// Sizes, durations, counts and fractions: SizeParser and DurationParser, and the two small
// grammars below, with the forms their messages list.

extension ValueParser<UInt64> {
    /// A size in bytes, as ``SizeParser`` reads it (`500M`, `1.5G`).
    static var size: ValueParser {
        ValueParser(
            forms: SizeParser.forms,
            read: { text throws(ValueProblem) in try quantity { () throws(QuantityError) in try SizeParser.parse(text) }
            },
            spell: { String($0) })
    }
}

extension ValueParser<Duration> {
    /// A duration, as ``DurationParser`` reads it (`500ms`, `7d`); spelled in exact seconds.
    static var duration: ValueParser {
        ValueParser(
            forms: DurationParser.forms,
            read: { text throws(ValueProblem) in
                try quantity { () throws(QuantityError) in try DurationParser.parse(text) }
            },
            spell: QuantityFormat.exactSeconds)
    }
}

extension ValueParser<Int> {
    /// A whole number (`--max-entries`, `--max-connections`), as ``wholeNumber(_:)`` reads it.
    static var count: ValueParser {
        ValueParser(
            forms: "a whole number, e.g. 10000",
            read: { text throws(ValueProblem) in try quantity { () throws(QuantityError) in try wholeNumber(text) } },
            spell: { String($0) })
    }

    /// `text` as a count: digits only, at most `Int.max`.
    ///
    /// - Throws: ``QuantityError`` for anything else: a unit, a point, a sign, too many digits.
    static func wholeNumber(_ text: String) throws(QuantityError) -> Int {
        let scanned = try DecimalNumber.split(text)
        guard scanned.unit.isEmpty else { throw .unknownUnit(String(scanned.unit)) }
        guard scanned.number.fractionDigits.isEmpty else { throw .notWhole }
        guard let count = scanned.number.scaled(by: 1), count <= UInt64(Int.max) else {
            throw .tooLarge(maximum: "\(Int.max)")
        }
        return Int(count)
    }
}

extension ValueParser<Double> {
    /// A fraction of a limit (`--low-water`) from 0.5 to 1, as ``decimalFraction(_:)`` reads it.
    static var lowWater: ValueParser {
        ValueParser(
            forms: "a decimal number from 0.5 to 1, e.g. 0.9",
            read: { text throws(ValueProblem) in try quantity { () throws(QuantityError) in try decimalFraction(text) }
            },
            // The shortest text that reads back as the same Double; from 0.5 to 1 it has no exponent.
            spell: \.description
        ).checked { (0.5...1).contains($0) ? nil : "it is not from 0.5 to 1" }
    }

    /// `text` as a plain decimal number such as `0.9`: digits and at most one point.
    ///
    /// - Throws: ``QuantityError`` for anything else: a unit, a sign, an exponent, `nan`.
    static func decimalFraction(_ text: String) throws(QuantityError) -> Double {
        let scanned = try DecimalNumber.split(text)
        guard scanned.unit.isEmpty else { throw .unknownUnit(String(scanned.unit)) }
        // Only digits and one point are left: Double parses them, never as hex, inf or nan.
        return Double(text) ?? .infinity
    }
}

/// What `parse` returns, its ``QuantityError`` as the reason of a ``ValueProblem``.
private func quantity<Quantity>(_ parse: () throws(QuantityError) -> Quantity) throws(ValueProblem) -> Quantity {
    do {
        return try parse()
    } catch {
        throw ValueProblem(error.description)
    }
}
