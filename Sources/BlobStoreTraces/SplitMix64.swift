/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014):
/// the generators' source of randomness, so that a trace follows from its seed alone, on any
/// machine and toolchain (the standard library's `random(in:using:)` may change its algorithm).
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// SplitMix64's output function: a bijection of 64-bit values that mixes every input bit
    /// into every output bit.
    static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// A number in `0..<bound` (`bound` > 0), by the high half of a 128-bit product (Lemire);
    /// without his rejection step, so biased by at most `bound / 2^64`.
    mutating func next(below bound: UInt64) -> UInt64 {
        next().multipliedFullWidth(by: bound).high
    }

    /// A number in `[0, 1)` with 53 random bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
