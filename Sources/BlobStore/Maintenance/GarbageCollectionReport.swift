/// What one garbage collection did (or, for a dry run, would do).
public struct GarbageCollectionReport: Sendable, Equatable, Codable {
    /// `true` when nothing was changed: the counts say what a real run would remove.
    public var dryRun: Bool
    /// Entries evicted because they had expired.
    public var expiredEntries: Int
    /// Entries evicted because they were idle longer than the maximum age.
    public var agedEntries: Int
    /// Entries evicted, least recently accessed first, to get under the capacity or entry limit.
    public var leastRecentlyUsedEntries: Int
    /// Entries evicted by SIEVE or S3-FIFO (``EvictionLimits/policy``) to get under the capacity
    /// or entry limit.
    public var chosenByPolicyEntries: Int
    /// Logical bytes of every evicted entry.
    public var evictedBytes: UInt64
    /// Blob files no entry refers to, deleted, and their bytes.
    public var blobsDeleted: Int
    public var blobBytesDeleted: UInt64
    /// Unreferenced blob files kept because they are younger than the grace period.
    public var blobsKeptYoung: Int
    /// Stale files in `tmp/` (older than the grace period) deleted, and their bytes.
    public var temporaryFilesDeleted: Int
    public var temporaryBytesDeleted: UInt64
    /// Journals and manifests of old generations (left by a crash mid-compaction) deleted.
    public var oldGenerationFilesDeleted: Int
    /// Packs whose live needles were copied to the newest pack (their live fraction was below
    /// `Configuration.repackLiveFraction`, or the store was over its capacity), and the needles
    /// copied.
    public var packsRewritten: Int
    public var needlesMoved: Int
    /// Pack files with nothing live deleted by the sweep, and their bytes (rewritten packs are
    /// deleted by the rewrite itself).
    public var packsDeleted: Int
    public var packBytesDeleted: UInt64
    /// The store after the run: entries, and bytes of referenced blobs.
    public var entriesAfter: Int
    public var storedBytesAfter: UInt64
    /// Wall time, in seconds.
    public var seconds: Double

    public init(dryRun: Bool) {
        self.dryRun = dryRun
        expiredEntries = 0
        agedEntries = 0
        leastRecentlyUsedEntries = 0
        chosenByPolicyEntries = 0
        evictedBytes = 0
        blobsDeleted = 0
        blobBytesDeleted = 0
        blobsKeptYoung = 0
        temporaryFilesDeleted = 0
        temporaryBytesDeleted = 0
        oldGenerationFilesDeleted = 0
        packsRewritten = 0
        needlesMoved = 0
        packsDeleted = 0
        packBytesDeleted = 0
        entriesAfter = 0
        storedBytesAfter = 0
        seconds = 0
    }

    /// Entries evicted for any reason.
    public var evictedEntries: Int { expiredEntries + agedEntries + leastRecentlyUsedEntries + chosenByPolicyEntries }
}
