import Glibc

// MARK: - Replay, catch-up, tail repair and appends

extension StoreState {
    /// Applies the records in `bytes` (journal bytes from the journal's end on, starting at
    /// `offset` within them) to the index.
    mutating func replay(_ bytes: [UInt8], from offset: Int) -> JournalReader.Scan {
        let scan = journal.replay(bytes, from: offset) { index.apply($0) }
        if scan.recordCount > 0 { packs.unmapUnused(index) }
        return scan
    }

    /// Reads what other processes appended since the last call and applies it. If CURRENT was
    /// replaced (a new generation, even one whose old journal a crash left behind), the journal
    /// was unlinked, or it shrank, the index is rebuilt from scratch.
    mutating func catchUp(layout: StoreLayout) throws {
        let currentVersion = currentVersion
        switch try journal.readAppended(generationChanged: { try FileVersion.of(layout.current) != currentVersion }) {
        case .replaced: try reload(layout: layout)
        case .nothing: break
        case .bytes(let bytes): _ = replay(bytes, from: 0)
        }
    }

    /// Catches up unless `changes` still holds the value it had at the last catch-up made here:
    /// then no other process has written since, and no system call is needed. Without a
    /// counter, always catches up.
    mutating func catchUpIfChanged(layout: StoreLayout, changes: ChangeCounter?) throws {
        guard !isCompacting else { return }
        guard let changes else { return try catchUp(layout: layout) }
        let value = changes.value
        // Unchanged since the last catch-up, or since this process's own last write.
        guard value != seenChanges, !changes.isOwnRelease(value) else { return }
        try catchUp(layout: layout)
        seenChanges = value
    }

    /// Rebuilds the index from the generation CURRENT names now.
    private mutating func reload(layout: StoreLayout) throws {
        let loaded = try LoadedGeneration.load(layout, flags: readOnly == nil ? O_RDWR | O_APPEND : O_RDONLY)
        Syscalls.close(journal.descriptor)
        adopt(loaded)
    }

    /// Takes `loaded`'s journal descriptor and rebuilds the index: the manifest's entries, then
    /// the journal's records. A damaged manifest keeps the entries before the damage and is
    /// rewritten by the next writer; the journal is replayed either way.
    mutating func adopt(_ loaded: LoadedGeneration) {
        journal = Journal(loaded.journal, version: loaded.version)
        generation = loaded.current.generation
        currentVersion = loaded.current.version
        index = StoreIndex()
        // A new generation may follow a repair that dropped records: nothing mapped or open for
        // appending is trusted across it.
        packs.closeAll(keepingUnsynced: &unsynced.blobs, writerUnsynced: unsynced.packWriter)
        unsynced.packWriter = false
        manifestBytes = Int64(loaded.manifest?.bytes.count ?? 0)
        manifestDamaged = false
        if let manifest = loaded.manifest {
            let damage = readManifest(manifest)
            manifestDamaged = damage != nil
            if let damage { recovery.manifestDamage = damage }
        }
        // Room for the journal's keys too (a put takes at least 50 bytes; most are 100 or more),
        // so that the tables do not grow step by step while it is replayed.
        index.reserveCapacity(loaded.journalBytes.count / 128)
        let scan = replay(loaded.journalBytes, from: JournalFormat.fileHeaderSize)
        recovery.recordsReplayed = scan.recordCount
    }

    /// Takes in a manifest: a format-2 one becomes the index's base, read in place; a format-1
    /// one is decoded into the index. Returns why it is not whole, or `nil`.
    private mutating func readManifest(_ manifest: FileMapping) -> String? {
        let buffer = manifest.bytes
        let version: UInt32
        do {
            let header = try JournalHeader(parsing: buffer, magic: ManifestFormat.magic)
            guard header.generation == generation else {
                return "the manifest says generation \(header.generation), CURRENT says \(generation)"
            }
            version = header.version
        } catch {
            return "the manifest header is not valid"
        }
        guard version == 1 else {
            do {
                index = StoreIndex(base: try ManifestTable(manifest))
                recovery.manifestEntries = index.count
                return nil
            } catch {
                return error.reason
            }
        }
        // An entry takes at least 38 bytes; most keys are longer than the 26 this assumes.
        index.reserveCapacity(buffer.count / 64)
        let result = ManifestReader.read(UnsafeRawBufferPointer(rebasing: buffer[JournalFormat.fileHeaderSize...])) {
            index.insert($0)
        }
        recovery.manifestEntries = result.entries
        return result.damage
    }

    /// With the exclusive lock held and after ``catchUp(layout:)``: makes the journal end at
    /// the last valid record before the next append, and rewrites a damaged manifest.
    ///
    /// A torn tail is truncated in place: every process stops reading at the first invalid
    /// frame, so none has read past the cut. Damage is different: a process that read the
    /// journal before a bit flipped may be past it, and an in-place cut followed by new appends
    /// would shift what it reads next. So damage is repaired by compacting: the bytes from the
    /// damaged record on are saved to `quarantine/`, the index (everything before the damage)
    /// becomes `manifest-<gen+1>` with an empty journal, and CURRENT is swapped; other processes
    /// see the new CURRENT and reload.
    mutating func repair(layout: StoreLayout, configuration: BlobStore.Configuration) throws {
        switch try journal.repairTail() {
        case .clean:
            break
        case .truncated(let count):
            recovery.tornTailBytes += count
        case .damaged(let rest, let count, let reason):
            let offset = Int(journal.end)
            let quarantine = try layout.preparedQuarantine(mode: configuration.directoryMode)
            let saved = quarantine + "/journal-\(generation)-at-\(offset)"
            try BlobStore.writeFileAtomically(saved, rest, directory: quarantine, mode: configuration.fileMode)
            recovery.droppedBytes += count
            recovery.corruptionOffset = offset
            recovery.corruptionReason = reason
            recovery.quarantinedJournal = saved
            _ = try compact(layout: layout, configuration: configuration)
        }
        if let damage = index.manifestDamage {
            // Found by a lookup or a scan since opening: reported as if opening had found it.
            if recovery.manifestDamage == nil { recovery.manifestDamage = damage }
            manifestDamaged = true
        }
        if manifestDamaged {
            _ = try compact(layout: layout, configuration: configuration)
        }
    }

    /// Appends buffered access times and `records` in one `write(2)` and applies them. Call with
    /// the exclusive lock held, after catching up and repairing the tail.
    mutating func append(_ records: [JournalRecord]) throws {
        guard try journal.append(accessRecords() + records) > 0 else { return }
        for record in records { index.apply(record) }
        dropPendingAccess()
        // Access records alone are hints: they ride along with the next sync, never cause one.
        if !records.isEmpty { unsynced.journal = true }
    }

    /// The buffered access times as records, each well under the payload limit.
    private func accessRecords() -> [JournalRecord] {
        guard !pendingAccess.isEmpty else { return [] }
        var records: [JournalRecord] = []
        var batch: [JournalRecord.AccessItem] = []
        var bytes = 0
        for item in pendingAccess {
            let itemBytes = item.key.bytes.count + 20
            if !batch.isEmpty
                && (bytes + itemBytes > JournalFormat.maxPayloadSize / 2 || batch.count == JournalFormat.maxAccessItems)
            {
                records.append(.access(batch))
                batch = []
                bytes = 0
            }
            batch.append(item)
            bytes += itemBytes
        }
        records.append(.access(batch))
        return records
    }

    /// Forgets the buffered access times (appended, or dropped as hints).
    mutating func dropPendingAccess() {
        pendingAccess.removeAll(keepingCapacity: true)
        pendingAccessBytes = 0
    }

    /// Queues a read the index has noted, for the journal's next append.
    mutating func queueAccess(_ key: StoreKey, at time: Int64) {
        pendingAccess.append(JournalRecord.AccessItem(key: key, time: time))
        pendingAccessBytes += key.bytes.count + 20
    }
}
