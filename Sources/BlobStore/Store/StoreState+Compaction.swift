import Glibc

// MARK: - Compaction and deleting garbage blobs

extension StoreState {
    /// Whether the journal is large enough, and dead enough, for an automatic compaction: at
    /// least ``BlobStore/Configuration/compactionMinimumJournalBytes``, and the live entries take
    /// less than `1 - compactionDeadFraction` of the journal and manifest together.
    func wantsCompaction(_ configuration: BlobStore.Configuration) -> Bool {
        guard journal.end >= configuration.compactionMinimumJournalBytes else { return false }
        let total = Double(journal.end + manifestBytes)
        return Double(index.liveRecordBytes) < total * (1 - configuration.compactionDeadFraction)
    }

    /// Writes the index as `manifest-<gen+1>` with an empty `journal-<gen+1>`, makes CURRENT name
    /// them, deletes the old pair, and then deletes the blobs no entry refers to any more. Call
    /// with the exclusive lock held, after catching up (docs/design.md, "Compaction").
    ///
    /// Until CURRENT is replaced, a failure (or a crash) leaves the old generation in force and
    /// the new files unused (GC deletes them). A failure while replacing CURRENT poisons the
    /// handle: which generation is in force is then for the next open to find out.
    ///
    /// All three steps under the caller's hold of the state mutex; ``BlobStore/compactInSteps()``
    /// lets the mutex go while the new generation is written and synced.
    mutating func compact(layout: StoreLayout, configuration: BlobStore.Configuration) throws -> CompactionReport {
        let plan = try planCompaction(layout: layout)
        let written: CompactionPlan.Written
        do {
            written = try plan.write(layout: layout, configuration: configuration)
        } catch {
            throw settle(error)  // a CompactionPlan.Failure: `write` throws nothing else
        }
        return try install(written, of: plan, layout: layout, configuration: configuration)
    }

    /// The first step of a compaction, under the mutex: syncs the blobs the manifest will refer
    /// to, and takes the snapshot of the index that the manifest is written from.
    mutating func planCompaction(layout: StoreLayout) throws -> CompactionPlan {
        guard generation < UInt64.max else {
            throw BlobStoreError(
                .corrupt, "CURRENT names the last possible generation; move \(layout.root) aside.", path: layout.current
            )
        }
        let started = Syscalls.monotonicNanoseconds()
        // The manifest is synced: the blobs it refers to must be too. A failed sync poisons, as
        // in a group commit (the pages it should have written may be gone).
        do {
            try syncUnsyncedBlobs()
        } catch let error as BlobStoreError {
            throw poisoned(by: error)
        }
        // The queue goes with the manifest as `policy-<gen+1>`: built now if it is not yet.
        preparePolicy(limits, layout: layout)
        return CompactionPlan(
            generation: generation, index: index, oldManifestBytes: UInt64(manifestBytes),
            oldJournalBytes: UInt64(journal.end), started: started)
    }

    /// Applies what a failed ``CompactionPlan/write(layout:configuration:)`` calls for (poisoning
    /// the handle when it must) and returns the error to throw.
    mutating func settle(_ failure: CompactionPlan.Failure) -> any Error {
        if failure.poisons, let error = failure.error as? BlobStoreError { return poisoned(by: error) }
        return poisoningIfSync(failure.error)
    }

    /// The last step, under the mutex: the written generation becomes this handle's, the old
    /// one's files and the garbage blobs are deleted, and the index is rebased on the new
    /// manifest. Nothing but hints (access times noted since the snapshot) changed meanwhile: the
    /// caller held ``BlobStore/writers`` and the exclusive lock throughout.
    mutating func install(
        _ written: CompactionPlan.Written, of plan: CompactionPlan, layout: StoreLayout,
        configuration: BlobStore.Configuration
    ) throws -> CompactionReport {
        #if BLOBSTORE_FAULT_INJECTION
            TestHooks.reach(.compactionCurrentSwapped)
        #endif
        var report = CompactionReport(
            generationBefore: plan.generation, generationAfter: written.generation,
            entries: written.contents.entries.count,
            manifestBytes: UInt64(written.manifestBytes), oldManifestBytes: plan.oldManifestBytes,
            oldJournalBytes: plan.oldJournalBytes, blobsDeleted: 0, blobBytesDeleted: 0, seconds: 0)
        removeGenerations(
            except: written.generation, replaced: plan.generation, layout: layout, configuration: configuration)
        #if BLOBSTORE_FAULT_INJECTION
            TestHooks.reach(.compactionOldGenerationRemoved)
        #endif
        Syscalls.close(journal.descriptor)
        journal = Journal(written.journal, version: JournalFormat.version)
        generation = written.generation
        currentVersion = try? FileVersion.of(layout.current)
        manifestBytes = Int64(written.manifestBytes)
        manifestDamaged = false
        unsynced.journal = false
        // Buffered access times are in the manifest already, or (noted after the snapshot)
        // hints that may go.
        dropPendingAccess()
        (report.blobsDeleted, report.blobBytesDeleted) = deleteGarbage(layout: layout)
        rebase(on: layout.manifest(generation: written.generation), contents: written.contents)
        report.seconds = Double(Syscalls.monotonicNanoseconds() - plan.started) / 1e9
        return report
    }

    /// Makes the manifest just written the index's base, read in place, so that the changes held
    /// in memory start again from nothing (and a damaged base is left behind). If it cannot be
    /// mapped, the index is rebuilt in memory from `contents`, what was written.
    private mutating func rebase(on path: String, contents: ManifestContents) {
        let nextPack = index.nextPack
        // The same entries: the queue stays as it is. The reads kept aside meanwhile go, as their
        // access records went (``install``): every process's queue is the files' queue.
        let policy = index.policy
        defer { index.policy = policy }
        if let fd = try? Syscalls.open(path, O_RDONLY) {
            defer { Syscalls.close(fd) }
            if let size = try? Syscalls.fstat(fd).st_size, let mapping = try? FileMapping(fd, length: Int(size)),
                let table = try? ManifestTable(mapping)
            {
                index = StoreIndex(base: table)
                packs.unmapUnused(index)
                return
            }
        }
        index = StoreIndex()
        index.reserveCapacity(contents.entries.count)
        let recipes = Dictionary(
            contents.recipes.map { ($0.recipe.digest, $0) }, uniquingKeysWith: { first, _ in first })
        for item in contents.entries {
            index.insert(item, recipe: item.location == .chunked ? recipes[item.entry.digest] : nil)
        }
        index.noteNextPack(nextPack)
        packs.unmapUnused(index)
    }

    /// Deletes the blobs of the garbage list that no entry refers to, and empties the list. Call
    /// with the exclusive lock held, after catching up, once the records that made them garbage
    /// are durable (or the store does not sync at all). Returns how many files and bytes went.
    mutating func deleteGarbage(layout: StoreLayout) -> (count: Int, bytes: UInt64) {
        deleteDeadPacks(layout: layout)
        var count = 0
        var bytes: UInt64 = 0
        for (digest, size) in index.garbage where index.blob(digest) == nil {
            // A shard that is a link is skipped: what it points to is not the store's to delete.
            guard let path = try? layout.checkedBlobPath(digest) else { continue }
            if (try? Syscalls.unlink(path)) == true {
                count += 1
                bytes &+= size
            }
        }
        index.clearGarbage()
        return (count, bytes)
    }

    /// Deletes the pack files in which nothing is live (``StoreIndex/deadPacks``: the newest too,
    /// once it holds a needle), once the records that killed their needles are durable, as for
    /// ``deleteGarbage(layout:)``; this process stops appending to any of them. Other processes that
    /// still map one keep reading it; its disk is freed when the last of them unmaps it.
    mutating func deleteDeadPacks(layout: StoreLayout) {
        let dead = index.deadPacks
        guard !dead.isEmpty else { return }
        packs.closeWriter(ifAppendingTo: dead)
        for number in dead {
            _ = try? Syscalls.unlink(layout.pack(number))
        }
        index.forgetDeadPacks()
        packs.unmapUnused(index)
    }

    /// Syncs and closes the blobs (and directories) written since the last group commit, and
    /// syncs the pack this process appends to.
    mutating func syncUnsyncedBlobs() throws {
        let blobs = unsynced.blobs
        let directories = unsynced.directories
        let pack = unsynced.packWriter ? packs.writer?.descriptor : nil
        unsynced.blobs = []
        unsynced.directories = []
        unsynced.packWriter = false
        defer { for fd in blobs { Syscalls.close(fd) } }
        for fd in blobs { try Syscalls.fdatasync(fd) }
        if let pack { try Syscalls.fdatasync(pack) }
        for directory in directories { try Syscalls.fsyncDirectory(directory) }
    }

    /// Deletes the replaced generation's journal and manifest (a damaged manifest is moved to
    /// `quarantine/` instead), and any other generation's files an earlier compaction left
    /// behind: an old journal must not stay linked, or a process that missed a generation could
    /// go on appending to it. Failures leave files for GC, which deletes old generations too.
    private func removeGenerations(
        except kept: UInt64, replaced old: UInt64, layout: StoreLayout, configuration: BlobStore.Configuration
    ) {
        if manifestDamaged, let quarantine = try? layout.preparedQuarantine(mode: configuration.directoryMode) {
            let target = quarantine + "/manifest-\(old)-" + String(Syscalls.random64() & 0xffff_ffff, radix: 16)
            _ = try? Syscalls.rename(layout.manifest(generation: old), target)
        }
        for name in (try? Syscalls.listDirectory(layout.root)) ?? [] {
            guard let generation = StoreLayout.generation(ofFileNamed: name), generation != kept else { continue }
            _ = try? Syscalls.unlink(layout.root + "/" + name)
        }
    }
}
