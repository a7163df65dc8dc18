/// The sizes a ``ContentDefinedChunker`` cuts between: no chunk is shorter than ``minimum`` (but a
/// value's last), none longer than ``maximum``, and cuts are made so that chunks average about
/// ``average`` bytes (FastCDC's normalized chunking, level 2: a cut is four times less likely than
/// `1 / average` per byte before a chunk reaches ``average`` bytes, four times more likely after).
///
/// The parameters and ``GearTable`` decide every cut: a stored recipe must say which ones it was
/// cut with, so that values cut again dedup against it.
package struct ChunkingParameters: Equatable, Sendable {
    /// The shortest chunk cut (a value's last chunk may be shorter).
    package let minimum: Int
    /// The chunk size the cuts aim at: a power of two.
    package let average: Int
    /// The longest chunk: one is cut here when no content-defined cut came first.
    package let maximum: Int

    /// The longest chunk any parameters allow: a recipe's lengths are read within it.
    static let largestMaximum = 1 << 30

    /// `nil` unless `average` is a power of two from 256 bytes to 64 MiB and
    /// `64 ≤ minimum < average < maximum ≤ 1 GiB`.
    package init?(minimum: Int, average: Int, maximum: Int) {
        guard average >= 256, average <= 64 << 20, average.nonzeroBitCount == 1, minimum >= 64,
            minimum < average, average < maximum, maximum <= Self.largestMaximum
        else { return nil }
        self.minimum = minimum
        self.average = average
        self.maximum = maximum
    }

    /// Minimum a quarter of `average`, maximum four times it (FastCDC's proportions).
    package init?(average: Int) {
        guard average <= 64 << 20 else { return nil }
        self.init(minimum: average / 4, average: average, maximum: average * 4)
    }

    /// The mask tested before a chunk reaches ``average``: log2(average) + 2 of the hash's top bits.
    var smallMask: UInt64 { Self.topBits(average.trailingZeroBitCount + 2) }
    /// The mask tested after: log2(average) − 2 top bits.
    var largeMask: UInt64 { Self.topBits(average.trailingZeroBitCount - 2) }

    /// A mask of the `count` most significant bits. The gear hash shifts left, so its top bits
    /// depend on the last 64 bytes and its low bits on the last few only: the cut tests the top.
    private static func topBits(_ count: Int) -> UInt64 {
        count <= 0 ? 0 : ~UInt64(0) << UInt64(64 - count)
    }
}
