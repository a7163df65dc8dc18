import Glibc

extension BlobStore {
    /// How a store behaves. Every field has a default that suits an app's cache.
    public struct Configuration: Sendable {
        /// When writes become durable. Default ``Durability/batched``: a process crash loses
        /// nothing, a power loss at most the last ``batchInterval`` of writes, and one sync covers
        /// many puts. See docs/design.md, "Durability".
        public var durability: Durability = .batched
        /// The longest a write waits for its group commit in ``Durability/batched`` mode.
        public var batchInterval: Duration = .milliseconds(50)
        /// Whether reads rehash the blob and treat a mismatch as a miss. Default `true`.
        public var verifyReads = true
        /// How long an operation waits for another process's exclusive lock before it throws
        /// ``BlobStoreError/Code/busy``.
        public var lockTimeout: Duration = .seconds(30)
        /// Access times buffered in memory before they are appended as one record.
        public var accessBatchSize = 1024
        /// Mode of the files the store creates (blobs are additionally made read-only), and the
        /// most it accepts on the files at the top of the store (the journal, CURRENT, …).
        public var fileMode: mode_t = 0o600
        /// Mode of the directories the store creates, and the most it accepts: opening refuses
        /// (``BlobStoreError/Code/unsafeLayout``) a store directory, or one of its directories, that
        /// the group or every user may write beyond this mode. A mode that grants the group write
        /// permission (`0o770`) declares a store shared with a group: a store directory owned by
        /// another user is then written too, instead of being opened read-only.
        public var directoryMode: mode_t = 0o700
        /// Whether opening creates the store (and missing parent directories) when there is
        /// none. With `false`, opening a path without a store throws
        /// ``BlobStoreError/Code/notFound``: right for tools that only read.
        public var createIfMissing = true
        /// Eviction limits. `nil` (the default) applies the limits recorded in the store (by an
        /// app or `blobstore config`), or none. Set limits are recorded in the store when it opens.
        public var limits: EvictionLimits? = nil
        /// Garbage collection never deletes an unreferenced blob or a temporary file younger than
        /// this: another process may be writing it. Default one hour.
        public var gracePeriod: Duration = .seconds(3600)
        /// Automatic compaction runs after a write once the journal is at least this large ...
        public var compactionMinimumJournalBytes: Int = 4 << 20
        /// ... and at least this fraction of the journal and manifest describes dead state
        /// (overwritten, removed or evicted entries, superseded access times). Default 0.5.
        public var compactionDeadFraction: Double = 0.5

        public init(
            durability: Durability = .batched, verifyReads: Bool = true,
            batchInterval: Duration = .milliseconds(50), lockTimeout: Duration = .seconds(30)
        ) {
            self.durability = durability
            self.verifyReads = verifyReads
            self.batchInterval = batchInterval
            self.lockTimeout = lockTimeout
        }
    }
}
