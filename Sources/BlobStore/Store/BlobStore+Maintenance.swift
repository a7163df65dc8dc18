import Glibc

// MARK: - Compaction, garbage collection and limits

extension BlobStore {
    /// Rewrites the index as a manifest of the live entries with an empty journal, then deletes
    /// the blobs no entry refers to any more and rewrites the packs whose live needles take
    /// less than ``Configuration/repackLiveFraction`` of them (docs/design.md, "Compaction").
    ///
    /// Creation and access times survive unchanged. Other processes with the store open notice
    /// the new generation on their next operation and reload it; nothing they wrote is lost, since
    /// compaction runs under the exclusive lock after catching up with them. Compaction also runs
    /// by itself after a write once the journal is large and mostly dead
    /// (``Configuration/compactionMinimumJournalBytes``, ``Configuration/compactionDeadFraction``).
    @discardableResult
    public func compact() throws -> CompactionReport {
        try writeInSteps {
            let report = try compactInSteps()
            _ = try state.withLock { try reclaimPacks(&$0, capacity: nil) }
            return report
        }
    }

    /// Evicts what the limits call for, then deletes unreferenced blobs, stale temporary files
    /// and files of old generations (docs/design.md, "Garbage collection").
    ///
    /// Eviction takes expired entries, then entries idle longer than `maxAge`, then (when the
    /// store is over its capacity or entry limit) the least recently accessed ones, down to the
    /// low-water mark; the evictions are journaled, and synced in durable modes, before any blob
    /// is deleted. The sweep then lists `blobs/` and deletes files no entry refers to, but none
    /// younger than the grace period: another process may be about to journal it.
    ///
    /// - Parameters:
    ///   - limits: The limits for this run; `nil` applies ``limits``.
    ///   - gracePeriod: `nil` applies ``Configuration/gracePeriod``.
    ///   - dryRun: Count what would go, change nothing.
    ///   - progress: Called after each shard directory of the sweep (from the calling thread).
    @discardableResult
    public func collectGarbage(
        limits: EvictionLimits? = nil, gracePeriod: Duration? = nil, dryRun: Bool = false,
        progress: (@Sendable (MaintenanceProgress) -> Void)? = nil
    ) throws -> GarbageCollectionReport {
        let started = Syscalls.monotonicNanoseconds()
        let limits = limits ?? self.limits
        if let problem = LimitsFile.validationProblem(limits) {
            throw BlobStoreError(.invalidArgument, problem)
        }
        let grace = Int64(clamping: (gracePeriod ?? configuration.gracePeriod).clampedNanoseconds / 1_000_000)
        var report = GarbageCollectionReport(dryRun: dryRun)
        try underLock(dryRun: dryRun) { state in
            let now = Syscalls.nowMilliseconds()
            let plan: EvictionPlan
            if dryRun {
                // The plan takes its victims out of the policy's queue: a copy's, here.
                var copy = state
                copy.preparePolicy(limits, layout: layout)
                plan = copy.index.evictionPlan(limits: limits, now: now)
            } else {
                let round = try evictionRound(&state, limits: limits, now: now)
                plan = round.plan
                report.blobsDeleted += round.deleted.count
                report.blobBytesDeleted &+= round.deleted.bytes
                let repack = try reclaimPacks(&state, capacity: limits.capacity)
                report.packsRewritten += round.repacked.packsRewritten + repack.packsRewritten
                report.needlesMoved += round.repacked.needlesMoved + repack.needlesMoved
            }
            report.expiredEntries = plan.count(.expired)
            report.agedEntries = plan.count(.aged)
            report.leastRecentlyUsedEntries = plan.count(.leastRecentlyUsed)
            report.chosenByPolicyEntries = plan.count(.sieve) + plan.count(.s3fifo)
            report.evictedBytes = plan.evictedBytes
        }
        try sweepBlobs(graceMilliseconds: grace, dryRun: dryRun, into: &report, progress: progress)
        try sweepTemporaryFiles(graceMilliseconds: grace, dryRun: dryRun, into: &report)
        try underLock(dryRun: dryRun) { state in
            try sweepPacks(state, dryRun: dryRun, into: &report)
            report.oldGenerationFilesDeleted = try removeOldGenerations(
                current: state.generation, graceMilliseconds: grace, dryRun: dryRun)
            report.entriesAfter = state.index.count
            report.storedBytesAfter = state.index.storedBytes
        }
        report.seconds = Double(Syscalls.monotonicNanoseconds() - started) / 1e9
        return report
    }

    /// The eviction limits in force: ``Configuration/limits`` if set, else those recorded in the
    /// store, else none.
    public var limits: EvictionLimits {
        state.withLock { $0.limits }
    }

    /// Records `limits` in the store (the `limits` file) and applies them from now on. Other
    /// processes apply them when they next open the store.
    ///
    /// - Throws: ``BlobStoreError/Code/invalidArgument`` for a limit out of range.
    public func recordLimits(_ limits: EvictionLimits) throws {
        let limits = LimitsFile.normalized(limits)
        if let problem = LimitsFile.validationProblem(limits) {
            throw BlobStoreError(.invalidArgument, problem)
        }
        // The file is written and synced with the state mutex let go.
        try writeInSteps {
            do {
                try BlobStore.writeFileAtomically(
                    layout.limits, Array(LimitsFile.encode(limits).utf8), directory: layout.root,
                    mode: configuration.fileMode)
            } catch {
                throw state.withLock { $0.poisoningIfSync(error) }
            }
            state.withLock { $0.limits = limits }
        }
    }

    // MARK: - Internals

    /// Reads the `limits` file; `nil` when there is none or it cannot be used.
    static func recordedLimits(_ layout: StoreLayout) -> EvictionLimits? {
        guard let fd = try? Syscalls.openIfExists(layout.limits, O_RDONLY) else { return nil }
        defer { Syscalls.close(fd) }
        guard let bytes = try? LoadedGeneration.readAll(fd, from: 0) else { return nil }
        return LimitsFile.decode(String(decoding: bytes, as: UTF8.self))
    }

    /// Runs `body` caught up, under the mutex and the exclusive lock. A dry run changes nothing,
    /// not even a torn tail: it only catches up, without the lock, as a read does.
    private func underLock(dryRun: Bool, _ body: (inout StoreState) throws -> Void) throws {
        if dryRun {
            return try state.withLock { state in
                try checkUsable(state)
                try state.catchUp(layout: layout)
                try body(&state)
            }
        }
        try write(body)
    }

    /// Deletes blob files no entry refers to and older than the grace period, one shard directory
    /// at a time: listed without the lock, decided and deleted under it, after catching up.
    private func sweepBlobs(
        graceMilliseconds grace: Int64, dryRun: Bool, into report: inout GarbageCollectionReport,
        progress: (@Sendable (MaintenanceProgress) -> Void)?
    ) throws {
        // Checked again here, as every shard below: the sweep deletes what it finds inside.
        try layout.checkFixedDirectory(layout.blobsRoot)
        try layout.checkFixedDirectory(layout.blobsSHA256)
        let shards = try Syscalls.listDirectory(layout.blobsSHA256).filter { name in
            name.utf8.count == 2 && SHA256Digest.isLowercaseHex(name)
        }.sorted()
        for (done, shard) in shards.enumerated() {
            let directory = layout.blobsSHA256 + "/" + shard
            guard let info = try Syscalls.lstat(directory), info.st_mode & S_IFMT == S_IFDIR else { continue }
            let names = try Syscalls.listDirectory(directory)
            try underLock(dryRun: dryRun) { state in
                let now = Syscalls.nowMilliseconds()
                for name in names {
                    // A loose file is kept while an entry refers to it as loose; a copy of a packed
                    // blob (fileURL(for:)) goes after the grace period like garbage.
                    guard name.hasPrefix(shard), SHA256Digest.isLowercaseHex(name),
                        let digest = SHA256Digest(hex: name),
                        state.index.blob(digest)?.location != .loose
                    else { continue }
                    let path = directory + "/" + name
                    guard let file = try Syscalls.lstat(path), file.st_mode & S_IFMT == S_IFREG else { continue }
                    guard now &- Self.changedMilliseconds(file) >= grace else {
                        report.blobsKeptYoung += 1
                        continue
                    }
                    if try dryRun || Syscalls.unlink(path) {
                        report.blobsDeleted += 1
                        report.blobBytesDeleted &+= UInt64(file.st_size)
                    }
                }
            }
            progress?(MaintenanceProgress(step: .sweep, done: done + 1, total: shards.count, bytes: 0, totalBytes: 0))
        }
    }

    /// Deletes pack files that no entry needs: packs with nothing live (but the newest), and
    /// packs no record names, left by a writer that died before its first record. Exclusive
    /// lock held, after catching up, so no writer is between creating a pack and journaling it.
    private func sweepPacks(_ state: StoreState, dryRun: Bool, into report: inout GarbageCollectionReport) throws {
        guard try layout.checkFixedDirectory(layout.packsDirectory) != nil else { return }
        for name in try Syscalls.listDirectory(layout.packsDirectory) {
            guard let number = PackFormat.packNumber(ofFileNamed: name), number != state.index.activePack,
                (state.index.packs[number]?.live ?? 0) == 0
            else { continue }
            let path = layout.pack(number)
            guard let file = try Syscalls.lstat(path), file.st_mode & S_IFMT == S_IFREG else { continue }
            if try dryRun || Syscalls.unlink(path) {
                report.packsDeleted += 1
                report.packBytesDeleted &+= UInt64(file.st_size)
            }
        }
    }

    /// Deletes files in `tmp/` older than the grace period whose writer is gone: temporary
    /// files are named `<pid>-<random>`, and a file whose process still runs may be waiting to
    /// be linked (a put blocked on the lock), however old. No lock is needed.
    private func sweepTemporaryFiles(
        graceMilliseconds grace: Int64, dryRun: Bool, into report: inout GarbageCollectionReport
    ) throws {
        let now = Syscalls.nowMilliseconds()
        // A link here would make the sweep delete old files wherever it points.
        try layout.checkFixedDirectory(layout.tmp)
        for name in try Syscalls.listDirectory(layout.tmp) {
            let path = layout.tmp + "/" + name
            guard let file = try Syscalls.lstat(path), file.st_mode & S_IFMT == S_IFREG,
                now &- Self.changedMilliseconds(file) >= grace,
                !Syscalls.processExists(Int32(name.prefix { $0 != "-" }) ?? 0)
            else { continue }
            if try dryRun || Syscalls.unlink(path) {
                report.temporaryFilesDeleted += 1
                report.temporaryBytesDeleted &+= UInt64(file.st_size)
            }
        }
    }

    /// Deletes journals and manifests of generations other than `current` (a compaction that
    /// died before deleting the old pair, or before CURRENT named the new one), and stale
    /// temporary names of atomic writes. With the exclusive lock held, so no compaction is
    /// writing them.
    private func removeOldGenerations(current: UInt64, graceMilliseconds grace: Int64, dryRun: Bool) throws -> Int {
        var count = 0
        let now = Syscalls.nowMilliseconds()
        for name in try Syscalls.listDirectory(layout.root) {
            let path = layout.root + "/" + name
            if let generation = StoreLayout.generation(ofFileNamed: name) {
                guard generation != current else { continue }
            } else if StoreLayout.isAtomicWriteLeftover(name) {
                guard let file = try Syscalls.lstat(path), now &- Self.changedMilliseconds(file) >= grace else {
                    continue
                }
            } else {
                continue
            }
            if try dryRun || Syscalls.unlink(path) { count += 1 }
        }
        return count
    }

    /// The later of a file's modification and status-change times, in milliseconds: linking a
    /// blob, or refreshing it on a deduplicated put, makes it young again.
    private static func changedMilliseconds(_ info: stat) -> Int64 {
        let modified = Int64(info.st_mtim.tv_sec).multipliedReportingOverflow(by: 1000)
        let changed = Int64(info.st_ctim.tv_sec).multipliedReportingOverflow(by: 1000)
        // A time too far out to count in milliseconds is "now or later": the file is kept.
        if modified.overflow || changed.overflow { return .max }
        return max(
            modified.partialValue &+ Int64(info.st_mtim.tv_nsec) / 1_000_000,
            changed.partialValue &+ Int64(info.st_ctim.tv_nsec) / 1_000_000)
    }
}
