/// The 256 random 64-bit values of the gear hash (`hash = hash << 1 + gear[byte]`), drawn from
/// ``SplitMix64`` seeded with ``seed``: fixed forever, since they decide where values are cut and
/// so what dedups against what is stored. Tests pin its first values and a list of cuts.
enum GearTable {
    /// The seed: the bytes of "BlobStor" as a big-endian integer.
    static let seed: UInt64 = 0x426C_6F62_5374_6F72

    /// The table.
    static let values: [UInt64] = {
        var random = SplitMix64(seed: seed)
        return (0..<256).map { _ in random.next() }
    }()
}
