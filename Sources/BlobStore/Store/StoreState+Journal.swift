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

    /// Reads what other processes appended since the last call and applies it. If the journal
    /// was replaced (a new generation) or shrank (another process truncated damage), the index
    /// is rebuilt from scratch.
    mutating func catchUp(layout: StoreLayout) throws {
        let info = try Syscalls.fstat(journal)
        if info.st_nlink == 0 || Int64(info.st_size) < journalEnd {
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
        let generation = try BlobStore.readCurrent(layout)
        let path = layout.journal(generation: generation)
        let fresh = try Syscalls.open(path, readOnly == nil ? O_RDWR | O_APPEND : O_RDONLY)
        let bytes = try BlobStore.readAll(fresh, from: 0)
        guard (try? bytes.withUnsafeBytes({ try JournalHeader(parsing: $0) }))?.generation == generation else {
            Syscalls.close(fresh)
            throw BlobStoreError(
                .corrupt, "\(path) does not start with a valid journal header for generation \(generation).",
                path: path)
        }
        Syscalls.close(journal)
        journal = fresh
        self.generation = generation
        index = StoreIndex()
        journalEnd = Int64(JournalFormat.fileHeaderSize)
        _ = replay(bytes, from: JournalFormat.fileHeaderSize)
    }

    /// With the exclusive lock held and after ``catchUp(layout:)``: truncates a torn tail, or
    /// saves damaged bytes to `quarantine/` and truncates them, so that the next append lands
    /// after valid records only.
    mutating func repairTail(layout: StoreLayout, configuration: BlobStore.Configuration) throws {
        guard tailNeedsRepair else { return }
        let rest = try BlobStore.readAll(journal, from: journalEnd)
        let scan = rest.withUnsafeBytes { JournalReader.scan($0) { _, _ in } }
        switch scan.ending {
        case .clean:
            break
        case .tornTail(let count):
            recovery.tornTailBytes += count
        case .corrupt(let count, let reason):
            let offset = Int(journalEnd)
            let saved = layout.quarantine + "/journal-\(generation)-at-\(offset)"
            try Syscalls.mkdir(layout.quarantine, mode: configuration.directoryMode)
            let fd = try Syscalls.open(saved, O_WRONLY | O_CREAT | O_TRUNC, mode: configuration.fileMode)
            defer { Syscalls.close(fd) }
            try rest.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
            try Syscalls.fsync(fd)
            recovery.droppedBytes += count
            recovery.corruptionOffset = offset
            recovery.corruptionReason = reason
            recovery.quarantinedJournal = saved
        }
        try Syscalls.ftruncate(journal, to: journalEnd)
        try Syscalls.fsync(journal)
        tailNeedsRepair = false
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
        pendingAccess.removeAll(keepingCapacity: true)
        pendingAccessBytes = 0
        journalEnd += Int64(writer.bytes.count)
        unsynced.journal = true
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

    /// Records a read in memory (the index now, the journal with the next append).
    mutating func noteAccess(_ key: StoreKey, at time: Int64) {
        index.apply(.access([JournalRecord.AccessItem(key: key, time: time)]))
        pendingAccess.append(JournalRecord.AccessItem(key: key, time: time))
        pendingAccessBytes += key.bytes.count + 20
    }
}
