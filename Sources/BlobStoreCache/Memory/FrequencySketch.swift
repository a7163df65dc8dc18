import BlobStore

/// About how often each key was asked for lately: a count-min sketch (four rows of small
/// counters, a key's frequency the least of its four), the frequency filter of TinyLFU (Einziger,
/// Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission Policy", 2017), with which a
/// ``MemoryTier`` decides whether a value read from disk may push out what it holds
/// (``MemoryTier/admit(_:for:)``).
///
/// Counters stop at 15, and after every ten requests per counter of a row (requests that
/// raised a counter; one for a key whose counters are all at 15 is not counted), every counter
/// is halved, so that what was popular long ago fades. Keys are counted by a 64-bit hash of their
/// bytes (``hash(_:)``); a key whose four counters are all shared with other keys reads as more
/// frequent than it is, which errs either way in an admission (a candidate or the entry it is
/// weighed against).
struct FrequencySketch {
    /// Four rows of `width` counters, one after the other.
    private var counters: [UInt8]
    /// `width - 1`: the width is a power of two.
    private let mask: Int
    /// The requests counted since the counters were last halved (or since the start).
    private(set) var counted = 0
    /// After how many counted requests the counters are halved.
    private let resetAfter: Int

    /// The most a counter holds.
    static let maximum: UInt8 = 15

    /// A sketch for about `expectedKeys` keys in use at once: a row of the next power of two at
    /// least that large (at least 64, at most 2^20: 4 MiB of counters).
    init(expectedKeys: Int) {
        var width = 64
        while width < expectedKeys, width < 1 << 20 { width <<= 1 }
        counters = [UInt8](repeating: 0, count: 4 * width)
        mask = width - 1
        resetAfter = 10 * width
    }

    /// Counts a request for the key whose hash is `hash`.
    mutating func increment(_ hash: UInt64) {
        let width = mask + 1
        var raised = false
        for row in 0..<4 {
            let index = row * width + Self.column(hash, row: row, mask: mask)
            if counters[index] < Self.maximum {
                counters[index] += 1
                raised = true
            }
        }
        guard raised else { return }
        counted += 1
        if counted >= resetAfter { halve() }
    }

    /// About how many requests were counted for the key whose hash is `hash`, lately (0-15).
    func frequency(_ hash: UInt64) -> Int {
        let width = mask + 1
        var least = Self.maximum
        for row in 0..<4 {
            least = min(least, counters[row * width + Self.column(hash, row: row, mask: mask)])
        }
        return Int(least)
    }

    /// Halves every counter, so that old requests count for less, and starts counting requests
    /// again.
    private mutating func halve() {
        for index in counters.indices { counters[index] >>= 1 }
        counted = 0
    }

    /// The column of row `row` for `hash`: a different mix of the hash's bits for each row.
    private static func column(_ hash: UInt64, row: Int, mask: Int) -> Int {
        let seeds: (UInt64, UInt64, UInt64, UInt64) = (
            0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63
        )
        let seed: UInt64 =
            switch row {
            case 0: seeds.0
            case 1: seeds.1
            case 2: seeds.2
            default: seeds.3
            }
        let mixed = (hash &+ seed) &* seed
        return Int(truncatingIfNeeded: mixed >> 32) & mask
    }

    /// The hash a key is counted by: eight bytes at a time, mixed as SplitMix64 mixes (a quarter
    /// of the instructions of the key's `hashValue`, which a hit computes for the tier's table
    /// already; it is counted at every read).
    static func hash(_ key: StoreKey) -> UInt64 {
        key.bytes.withUnsafeBytes { bytes in
            var hash = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
            var offset = 0
            while offset + 8 <= bytes.count {
                hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
                hash ^= hash >> 31
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < bytes.count {
                tail = tail << 8 | UInt64(bytes[offset])
                offset += 1
            }
            hash = (hash ^ tail) &* 0x94D0_49BB_1331_11EB
            return hash ^ (hash >> 29)
        }
    }
}
