/// A cache size as a decimal fraction of a trace's footprint (`0.001`, `0.01`, `0.1`), kept as
/// the digits were written so that the size in bytes is `footprint × digits / 10^scale` rounded
/// down exactly, as `scripts/hit-ratio-oracle.py` computes it.
struct CacheFraction: CustomStringConvertible, Equatable {
    let text: String
    let digits: UInt64
    let scale: Int

    /// Reads `0.01`, `.5` or `1`; `nil` for anything else, zero, or more than one.
    init?(_ text: String) {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        guard parts.count <= 2, !(whole.isEmpty && fraction.isEmpty), fraction.count <= 12,
            (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }),
            let digits = UInt64(whole + fraction), digits > 0
        else { return nil }
        var power: UInt64 = 1
        for _ in 0..<fraction.count { power *= 10 }
        guard digits <= power else { return nil }
        self.text = text
        self.digits = digits
        self.scale = fraction.count
    }

    var value: Double {
        var power = 1.0
        for _ in 0..<scale { power *= 10 }
        return Double(digits) / power
    }

    /// `footprint × self`, rounded down, at least 1.
    func of(_ footprint: UInt64) -> UInt64 {
        var power: UInt64 = 1
        for _ in 0..<scale { power *= 10 }
        let (high, low) = footprint.multipliedFullWidth(by: digits)
        let (quotient, _) = power.dividingFullWidth((high, low))
        return max(1, quotient)
    }

    var description: String { text }
}
