/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", 2014): a
/// seeded generator whose numbers follow from its seed alone, on any machine and toolchain. The
/// chunker's gear table is drawn from it (so it may never change), and the tests and
/// blobstore-torture replay their operations and values from seeds with it.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// `count` bytes from the generator seeded with `seed`: its numbers' bytes in order, each
    /// number least significant byte first (the last one's first bytes when `count` is not a
    /// multiple of eight).
    package static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            var index = 0
            while index < count {
                var word = random.next()
                for offset in index..<min(count, index + 8) {
                    buffer[offset] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                }
                index += 8
            }
            initialized = count
        }
    }
}
