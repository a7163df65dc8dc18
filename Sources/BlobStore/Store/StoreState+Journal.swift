import Glibc

// MARK: - Replay, catch-up, tail repair and appends

extension StoreState {
    /// Applies the records in `bytes` (journal bytes starting at file offset `offset`) and moves
    /// ``journalEnd`` past the last valid one.
    mutating func replay(_ bytes: [UInt8], from offset: Int) -> JournalReader.Scan {
        let scan = bytes.withUnsafeBytes { buffer in
            JournalReader.scan(UnsafeRawBufferPointer(rebasing: buffer[offset...])) { record, _ in
                index.apply(record)
            }
        }
        journalEnd += Int64(scan.validEnd)
        tailNeedsRepair = scan.ending != .clean
        return scan
    }

    /// Reads what other processes appended since the last call and applies it. If CURRENT was
    /// replaced (a new generation, even one whose old journal a crash left behind), the journal
    /// was unlinked, or it shrank, the index is rebuilt from scratch.
    mutating func catchUp(layout: StoreLayout) throws {
        let info = try Syscalls.fstat(journal)
        let currentInode = try Syscalls.lstat(layout.current).map { UInt64($0.st_ino) }
        if currentInode != self.currentInode || info.st_nlink == 0 || Int64(info.st_size) < journalEnd {
            try reload(layout: layout)
            return
        }
        guard Int64(info.st_size) > journalEnd else {
            tailNeedsRepair = false
            return
        }
        let bytes = try BlobStore.readAll(journal, from: journalEnd)
        _ = replay(bytes, from: 0)
    }

    /// Rebuilds the index from CURRENT's journal.
    private mutating func reload(layout: StoreLayout) throws {
        let loaded = try BlobStore.loadCurrentJournal(layout, flags: readOnly == nil ? O_RDWR | O_APPEND : O_RDONLY)
        Syscalls.close(journal)
        journal = loaded.journal
        generation = loaded.generation
        currentInode = loaded.currentInode
        index = StoreIndex()
        journalEnd = Int64(JournalFormat.fileHeaderSize)
        _ = replay(loaded.bytes, from: JournalFormat.fileHeaderSize)
    }

    /// With the exclusive lock held and after ``catchUp(layout:)``: makes the journal end at
    /// the last valid record before the next append.
    ///
    /// A torn tail is truncated in place: every process stops reading at the first invalid
    /// frame, so none has read past the cut. Damage is different: a process that read the
    /// journal before a bit flipped may be past it, and an in-place cut followed by new appends
    /// would shift what it reads next. So damage is repaired by rotating: the bytes from the
    /// damaged record on are saved to `quarantine/`, the valid records are copied to
    /// `journal-<gen+1>`, CURRENT is swapped and the old journal unlinked; other processes see
    /// the unlinked journal (`st_nlink == 0`) and reload.
    mutating func repairTail(layout: StoreLayout, configuration: BlobStore.Configuration) throws {
        guard tailNeedsRepair else { return }
        let rest = try BlobStore.readAll(journal, from: journalEnd)
        let scan = rest.withUnsafeBytes { JournalReader.scan($0) { _, _ in } }
        switch scan.ending {
        case .clean:
            break
        case .tornTail(let count):
            try Syscalls.ftruncate(journal, to: journalEnd)
            try Syscalls.fsync(journal)
            recovery.tornTailBytes += count
        case .corrupt(let count, let reason):
            let offset = Int(journalEnd)
            let saved = layout.quarantine + "/journal-\(generation)-at-\(offset)"
            try Syscalls.mkdir(layout.quarantine, mode: configuration.directoryMode)
            try BlobStore.writeFileAtomically(saved, rest, directory: layout.quarantine, mode: configuration.fileMode)
            try rotate(keepingBytes: journalEnd, layout: layout, configuration: configuration)
            recovery.droppedBytes += count
            recovery.corruptionOffset = offset
            recovery.corruptionReason = reason
            recovery.quarantinedJournal = saved
        }
        tailNeedsRepair = false
    }

    /// Copies the first `length` bytes of the journal (header and valid records) to a journal of
    /// the next generation, makes CURRENT name it, unlinks the old one and switches to it.
    private mutating func rotate(
        keepingBytes length: Int64, layout: StoreLayout, configuration: BlobStore.Configuration
    )
        throws
    {
        guard generation < UInt64.max else {
            throw BlobStoreError(
                .corrupt, "CURRENT names the last possible generation; move \(layout.root) aside.", path: layout.current
            )
        }
        let next = generation + 1
        let records = try BlobStore.readAll(journal, from: Int64(JournalFormat.fileHeaderSize))
            .prefix(Int(length) - JournalFormat.fileHeaderSize)
        let path = layout.journal(generation: next)
        let fresh = try Syscalls.open(path, O_RDWR | O_APPEND | O_CREAT | O_TRUNC, mode: configuration.fileMode)
        do {
            try (JournalHeader(generation: next).encoded + records).withUnsafeBytes {
                try Syscalls.writeFully(fresh, $0)
            }
            try Syscalls.fsync(fresh)
            try BlobStore.writeFileAtomically(
                layout.current, Array(BlobStore.currentFileContent(generation: next).utf8), directory: layout.root,
                mode: configuration.fileMode)
        } catch {
            Syscalls.close(fresh)
            throw error
        }
        // A crash (or a failure) before the unlink leaves the old journal behind: harmless, since
        // every process compares CURRENT's inode, and GC removes it.
        _ = try? Syscalls.unlink(layout.journal(generation: generation))
        Syscalls.close(journal)
        journal = fresh
        generation = next
        currentInode = try Syscalls.lstat(layout.current).map { UInt64($0.st_ino) } ?? 0
    }

    /// Appends buffered access times and `records` in one `write(2)` and applies them. Call with
    /// the exclusive lock held, after catching up and repairing the tail.
    mutating func append(_ records: [JournalRecord]) throws {
        var writer = ByteWriter()
        for record in accessRecords() + records {
            record.frame(into: &writer)
        }
        guard !writer.bytes.isEmpty else { return }
        do {
            try writer.bytes.withUnsafeBytes { try Syscalls.writeOnce(journal, $0) }
        } catch {
            tailNeedsRepair = true
            throw error
        }
        for record in records { index.apply(record) }
        dropPendingAccess()
        journalEnd += Int64(writer.bytes.count)
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

    /// Records a read in memory (the index now, the journal with the next append).
    mutating func noteAccess(_ key: StoreKey, at time: Int64) {
        index.apply(.access([JournalRecord.AccessItem(key: key, time: time)]))
        pendingAccess.append(JournalRecord.AccessItem(key: key, time: time))
        pendingAccessBytes += key.bytes.count + 20
    }
}
