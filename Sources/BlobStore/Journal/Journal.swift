/// The generation's journal as this process sees it: the descriptor (open for appending when the
/// store is writable), how far its records have been applied, whether its tail must be examined
/// before the next append, and its format version. It reads what other processes appended,
/// frames and appends records, and repairs its own tail; what the records mean is the index's
/// business (``StoreState``).
struct Journal: Sendable {
    /// What ``readAppended()`` found.
    enum Appended {
        /// Nothing past ``end``.
        case nothing
        /// The bytes from ``end`` to the end of the file.
        case bytes([UInt8])
        /// The file was unlinked or is shorter than ``end``: a compaction or a repair replaced
        /// the generation, and the index must be rebuilt from CURRENT.
        case replaced
    }

    /// What ``repairTail()`` did.
    enum TailRepair: Equatable {
        /// Every byte after ``end`` is a whole record (another process appended them).
        case clean
        /// A torn tail of this many bytes was cut off and the cut synced.
        case truncated(byteCount: Int)
        /// The record at ``end`` is damaged: `rest` is everything from there, for quarantine.
        /// Nothing is cut: a process that read past the damage must not see later bytes move.
        case damaged(rest: [UInt8], byteCount: Int, reason: String)
    }

    let descriptor: FileDescriptor
    /// File offset up to which records have been applied.
    private(set) var end = Int64(JournalFormat.fileHeaderSize)
    /// The last read stopped before the end of the file (a torn tail or damage), or an append
    /// failed: the tail must be examined under the exclusive lock before the next append.
    private(set) var needsRepair = false
    /// The format version of the journal's header: 1 for a store written before packs.
    let version: UInt32

    init(_ descriptor: FileDescriptor, version: UInt32) {
        self.descriptor = descriptor
        self.version = version
    }

    /// Reads records from `bytes` (journal bytes from file offset ``end``, starting at `offset`
    /// within them), hands each to `apply`, and moves ``end`` past the last valid one.
    mutating func replay(_ bytes: [UInt8], from offset: Int = 0, _ apply: (JournalRecord) -> Void)
        -> JournalReader.Scan
    {
        let scan = bytes.withUnsafeBytes { buffer in
            JournalReader.scan(UnsafeRawBufferPointer(rebasing: buffer[offset...])) { record, _ in apply(record) }
        }
        end += Int64(scan.validEnd)
        needsRepair = scan.ending != .clean
        return scan
    }

    /// What other processes appended since the last read: one `fstat`, then `generationChanged`
    /// (the caller's look at CURRENT), and a `pread` when the file grew.
    mutating func readAppended(generationChanged: () throws -> Bool) throws -> Appended {
        let info = try Syscalls.fstat(descriptor)
        if try generationChanged() || info.st_nlink == 0 || Int64(info.st_size) < end { return .replaced }
        guard Int64(info.st_size) > end else {
            needsRepair = false
            return .nothing
        }
        return .bytes(try LoadedGeneration.readAll(descriptor, from: end))
    }

    /// With the exclusive lock held and after a catch-up, makes the journal end at the last valid
    /// record before the next append. A torn tail is cut in place: every process stops reading
    /// at the first invalid frame, so none has read past the cut. Damage is left for the caller
    /// to repair by compacting (``StoreState/repair(layout:configuration:)``), which replaces
    /// the journal; until then ``needsRepair`` stays set.
    mutating func repairTail() throws -> TailRepair {
        guard needsRepair else { return .clean }
        let rest = try LoadedGeneration.readAll(descriptor, from: end)
        let scan = rest.withUnsafeBytes { JournalReader.scan($0) { _, _ in } }
        switch scan.ending {
        case .clean:
            needsRepair = false
            return .clean
        case .tornTail(let count):
            do {
                try Syscalls.ftruncate(descriptor, to: end)
                try Syscalls.fsync(descriptor)
            } catch {
                throw error
            }
            needsRepair = false
            return .truncated(byteCount: count)
        case .corrupt(let count, let reason):
            // Still to repair until the caller's compaction replaces this journal.
            return .damaged(rest: rest, byteCount: count, reason: reason)
        }
    }

    /// Frames `records` and appends them in one `write(2)`; returns the bytes written. A failed
    /// or short write leaves a tail to repair before the next append.
    mutating func append(_ records: [JournalRecord]) throws -> Int {
        var writer = ByteWriter()
        for record in records { record.frame(into: &writer) }
        guard !writer.bytes.isEmpty else { return 0 }
        do {
            try writer.bytes.withUnsafeBytes { try Syscalls.writeOnce(descriptor, $0) }
        } catch {
            needsRepair = true
            throw error
        }
        end += Int64(writer.bytes.count)
        return writer.bytes.count
    }
}
