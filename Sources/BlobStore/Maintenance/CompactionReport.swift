/// What one compaction did.
public struct CompactionReport: Sendable, Equatable, Codable {
    /// The generation before and after: the manifest written is `manifest-<generationAfter>`.
    public var generationBefore: UInt64
    public var generationAfter: UInt64
    /// Live entries written to the manifest.
    public var entries: Int
    /// Size of the new manifest.
    public var manifestBytes: UInt64
    /// Size of the old manifest (0 if there was none) and journal, replaced by the new pair.
    public var oldManifestBytes: UInt64
    public var oldJournalBytes: UInt64
    /// Blobs that no entry referred to, deleted afterwards, and their bytes.
    public var blobsDeleted: Int
    public var blobBytesDeleted: UInt64
    /// Wall time, in seconds.
    public var seconds: Double

    public init(
        generationBefore: UInt64, generationAfter: UInt64, entries: Int, manifestBytes: UInt64,
        oldManifestBytes: UInt64, oldJournalBytes: UInt64, blobsDeleted: Int, blobBytesDeleted: UInt64,
        seconds: Double
    ) {
        self.generationBefore = generationBefore
        self.generationAfter = generationAfter
        self.entries = entries
        self.manifestBytes = manifestBytes
        self.oldManifestBytes = oldManifestBytes
        self.oldJournalBytes = oldJournalBytes
        self.blobsDeleted = blobsDeleted
        self.blobBytesDeleted = blobBytesDeleted
        self.seconds = seconds
    }
}
