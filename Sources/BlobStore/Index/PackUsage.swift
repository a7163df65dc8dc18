/// What the index knows about one pack: how far needles reach and how many bytes of them are
/// referenced.
struct PackUsage: Equatable, Sendable {
    /// The end of the furthest needle any record has placed in the pack (at least its header).
    var end: UInt64 = PackFormat.headerSize
    /// Bytes of needles that some entry refers to.
    var live: UInt64 = 0

    /// Whether the pack holds needles and none of them is referenced: its file can go
    /// (``StoreIndex/deadPacks``), and any process may have deleted it already.
    var holdsOnlyDeadNeedles: Bool { live == 0 && end > PackFormat.headerSize }

    /// The part of the pack's needle bytes that is referenced, from 0 to 1.
    var liveFraction: Double {
        let needles = end &- PackFormat.headerSize
        return needles == 0 ? 1 : Double(live) / Double(needles)
    }
}
