/// What opening the store found in the journal.
///
/// A torn tail is the normal trace of a crash mid-append and loses nothing acknowledged.
/// Corruption (a checksum mismatch) stops replay at the damaged record: the records after it
/// are dropped, their bytes kept in `quarantine/` for inspection.
public struct RecoveryReport: Sendable, Equatable, Codable {
    /// Records replayed from the journal.
    public var recordsReplayed = 0
    /// Bytes of an incomplete last record (or zero fill) that were truncated.
    public var tornTailBytes = 0
    /// Bytes dropped at and after a damaged record.
    public var droppedBytes = 0
    /// Where the damaged record started (journal file offset), if any.
    public var corruptionOffset: Int?
    /// Why the record there was rejected.
    public var corruptionReason: String?
    /// Where the dropped bytes were saved, if any.
    public var quarantinedJournal: String?
    /// Entries read from the manifest (0 before the first compaction).
    public var manifestEntries = 0
    /// Why the manifest did not read whole, if it did not: the entries after the damage are
    /// lost, and the manifest is rewritten from what was read.
    public var manifestDamage: String?

    /// `true` when nothing was dropped (a torn tail does not count).
    public var isClean: Bool { droppedBytes == 0 && manifestDamage == nil }

    public init() {}
}
