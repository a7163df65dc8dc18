/// Everything about an open store that changes, guarded by the store's one mutex.
struct StoreState: Sendable {
    var index = StoreIndex()
    var generation: UInt64
    /// CURRENT's version when this process last read it; a different one means a new generation.
    var currentVersion: FileVersion?
    /// The generation's journal: descriptor, how far it was applied to ``index``, its tail's
    /// state and its format version (1 for a store written before packs, converted by a
    /// compaction before anything packed is appended).
    var journal: Journal
    /// The packs this process maps for reading, and the one it appends to.
    var packs = PackFiles()
    /// A write reclaims dead needles once ``StoreIndex/deadPackBytes`` reaches this.
    var nextRepackCheck = StoreState.repackCheckInterval
    /// How many dead needle bytes gather between two automatic reclaims: half a pack.
    static let repackCheckInterval = PackFormat.maximumPackSize / 2
    /// Size of the generation's manifest (0 without one).
    var manifestBytes: Int64 = 0
    /// The manifest did not read whole: the next writer rewrites it (a compaction) under the
    /// exclusive lock.
    var manifestDamaged = false
    /// The limits eviction applies (Configuration's, else those recorded in the store).
    var limits = EvictionLimits()
    /// When the next write should run an eviction round for ``EvictionLimits/maxAge`` even if no
    /// other limit is passed (milliseconds since the epoch).
    var nextAgeCheck: Int64 = 0
    /// The store's ``ChangeCounter`` value read just before the last ``catchUpIfChanged(layout:changes:)``
    /// that caught up; `nil` before the first.
    var seenChanges: UInt64?
    /// Set while ``BlobStore/compactInSteps()`` writes the next generation with the mutex let go:
    /// this process holds the exclusive lock, so nothing can have changed but what it is
    /// writing, and a reader must not catch up with a CURRENT that already names a generation
    /// this handle has not installed yet.
    var isCompacting = false
    /// Set by a write's body when maintenance is to follow it
    /// (``BlobStore/maintainInSteps()``), once the body lets the mutex go.
    var maintenanceDue: MaintenanceRequest?

    /// What a write asks of the maintenance after it.
    struct MaintenanceRequest {
        /// The entry the write put, which its eviction round spares.
        var protecting: StoreKey?
    }
    /// Reads not yet appended as an access record.
    var pendingAccess: [JournalRecord.AccessItem] = []
    var pendingAccessBytes = 0
    var accessFlushScheduled = false
    /// Writes not yet synced, in ``Durability/batched`` mode.
    var unsynced = UnsyncedWrites()
    var commitScheduled = false
    /// A write appended in ``Durability/always`` mode and left the journal's sync to be run once
    /// the state mutex is let go (``BlobStore/write(_:)``).
    var journalSyncDeferred = false
    /// Set when an `fsync` failed: nothing more is acknowledged (docs/design.md, "The poison rule").
    var poison: BlobStoreError?
    /// Set when the store must not be written (it belongs to another user) or the journal could
    /// only be opened for reading: reads work, writes throw this.
    var readOnly: BlobStoreError?
    var isClosed = false
    var hits = 0
    var misses = 0
    var repairs = 0
    var damagedReads = 0
    var recovery = RecoveryReport()

    /// A state holding `loaded`'s journal descriptor, with the index built from its manifest and
    /// journal.
    init(_ loaded: LoadedGeneration) {
        generation = loaded.current.generation
        currentVersion = loaded.current.version
        journal = Journal(loaded.journal, version: loaded.version)
        adopt(loaded)
    }

    /// Whether the journal's tail or the manifest must be repaired before the next append.
    var needsRepair: Bool { journal.needsRepair || manifestDamaged || index.manifestDamage != nil }

    /// The poison rule (docs/design.md, "The poison rule"), in one place: after a failed sync, or a repair
    /// that stopped half-way, this handle acknowledges nothing more. Keeps the first such
    /// failure (its message is the one users see) and returns `error`, to be thrown.
    @discardableResult
    mutating func poisoned(by error: BlobStoreError) -> BlobStoreError {
        if poison == nil { poison = error }
        return error
    }

    /// Poisons the handle if `error` is a failed sync, and returns it.
    mutating func poisoningIfSync(_ error: any Error) -> any Error {
        if let error = error as? BlobStoreError, error.isSyncFailure { poisoned(by: error) }
        return error
    }

    /// What opening found, and any damage in the manifest that reads found since.
    var recoveryReport: RecoveryReport {
        var report = recovery
        if report.manifestDamage == nil, let damage = index.manifestDamage { report.manifestDamage = damage }
        return report
    }
}

/// Files and directories written since the last group commit.
struct UnsyncedWrites: Sendable {
    /// Open descriptors of blobs linked since the last commit; synced, then closed.
    var blobs: [FileDescriptor] = []
    var directories: Set<String> = []
    var journal = false
    /// Needles were appended to the pack ``PackFiles/writer`` has open.
    var packWriter = false

    var isEmpty: Bool { blobs.isEmpty && directories.isEmpty && !journal && !packWriter }
}
