/// `get --range`: bytes `first` to `last` of a value, both counted from 0 and included, as an HTTP
/// `Range` header counts them; no `last` reads to the end.
struct ValueRange: Equatable, Sendable {
    var first: Int
    var last: Int?

    /// The byte positions of a value of `size` bytes that the range covers (cut to its end).
    func positions(inValueOf size: Int) -> Range<Int> {
        let end = last.map { $0 == Int.max ? $0 : $0 + 1 } ?? Int.max
        return (first..<end).clamped(to: 0..<size)
    }
}

extension ValueParser<ValueRange> {
    /// `A-B` (bytes A to B, both included, A ≤ B) or `A-` (from A to the end), in decimal digits.
    static var valueRange: ValueParser {
        ValueParser(
            forms: "<first>-<last> (bytes first to last, counted from 0, both included) or <first>- (to the end)",
            read: { text throws(ValueProblem) in
                let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let first = Self.position(parts[0]) else {
                    throw ValueProblem("it is not <first>-<last> or <first>-")
                }
                guard !parts[1].isEmpty else { return ValueRange(first: first, last: nil) }
                guard let last = Self.position(parts[1]) else { throw ValueProblem("it is not <first>-<last>") }
                guard first <= last else { throw ValueProblem("the first byte comes after the last") }
                return ValueRange(first: first, last: last)
            },
            spell: { range in "\(range.first)-" + (range.last.map(String.init) ?? "") })
    }

    /// A byte position: decimal digits only (no sign, no spaces), within `Int`.
    private static func position(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int(text)
    }
}
