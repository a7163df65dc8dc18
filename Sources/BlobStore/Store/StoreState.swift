/// Everything about an open store that changes, guarded by the store's one mutex.
struct StoreState: Sendable {
    var index = StoreIndex()
    var generation: UInt64
    /// CURRENT's inode when this process last read it; a different one means a new generation.
    var currentInode: UInt64
    var journal: FileDescriptor
    /// Journal file offset up to which records have been applied to ``index``.
    var journalEnd: Int64
    /// The last catch-up stopped before the end of the journal (a torn tail or damage): it must
    /// be examined under the exclusive lock before the next append.
    var tailNeedsRepair = false
    /// Reads not yet appended as an access record.
    var pendingAccess: [JournalRecord.AccessItem] = []
    var pendingAccessBytes = 0
    var accessFlushScheduled = false
    /// Writes not yet synced, in ``Durability/batched`` mode.
    var unsynced = UnsyncedWrites()
    var commitScheduled = false
    /// Set when an `fsync` failed: nothing more is acknowledged (DESIGN.md, invariant 7).
    var poison: BlobStoreError?
    /// Set when the journal could only be opened for reading: reads work, writes throw this.
    var readOnly: BlobStoreError?
    var isClosed = false
    var hits = 0
    var misses = 0
    var repairs = 0
    var damagedReads = 0
    var recovery = RecoveryReport()

    init(generation: UInt64, currentInode: UInt64, journal: FileDescriptor, journalEnd: Int64) {
        self.generation = generation
        self.currentInode = currentInode
        self.journal = journal
        self.journalEnd = journalEnd
    }
}

/// Files and directories written since the last group commit.
struct UnsyncedWrites: Sendable {
    /// Open descriptors of blobs linked since the last commit; synced, then closed.
    var blobs: [FileDescriptor] = []
    var directories: Set<String> = []
    var journal = false

    var isEmpty: Bool { blobs.isEmpty && directories.isEmpty && !journal }
}
