/// The packs a manifest (format 2) lists: the next pack number, and the end of every pack that
/// holds a live needle or is the newest, so that the disk a pack takes is counted in full after a
/// compaction, dead needles included.
struct ManifestPackTable: Equatable, Sendable {
    struct Pack: Equatable, Sendable {
        var number: UInt32
        var end: UInt64
    }

    var nextPack: UInt32
    var packs: [Pack]
}
