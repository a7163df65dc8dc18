/// The in-memory index, rebuilt by replaying the journal: key → entry, digest → references and
/// size, and running totals. Opening a store never walks the blob directories; every size is here.
///
/// Totals use wrapping arithmetic: sizes come from the journal, and a record with a valid
/// checksum but an absurd size must not trap the process (adds and subtracts still cancel).
struct StoreIndex: Sendable {
    /// A distinct blob and how many keys refer to it.
    struct BlobReference: Equatable, Sendable {
        var referenceCount: Int
        var size: UInt64
        /// This process wrote the blob or checked its digest; until then a put that reuses it
        /// hashes it first (a replayed journal says nothing about the file's health).
        var isVerified = false
    }

    /// One key and its entry, stored once in ``records``.
    struct Record: Sendable {
        var key: StoreKey
        var entry: IndexEntry
    }

    /// The entries, densely and in no particular order. A key's place is in ``positions``; a
    /// removal moves the last record into the hole. A hash table keeps its buckets at most 3/4
    /// full, so buckets of a 4-byte position instead of a whole entry save about 100 bytes of
    /// memory per entry (docs/design.md, "Memory").
    private(set) var records: ContiguousArray<Record> = []
    private var positions: [StoreKey: UInt32] = [:]
    private(set) var blobs: [SHA256Digest: BlobReference] = [:]
    /// Sum of the sizes of all entries (a blob shared by two keys counts twice).
    private(set) var logicalBytes: UInt64 = 0
    /// Sum of the sizes of distinct referenced blobs.
    private(set) var storedBytes: UInt64 = 0
    /// Blobs whose last reference this index saw go (overwrite, remove, eviction), with their
    /// sizes: deleted by the next eviction round or compaction, unless referenced again first.
    /// Some may be gone already (another process deleted them).
    private(set) var garbage: [SHA256Digest: UInt64] = [:]
    private(set) var garbageBytes: UInt64 = 0
    /// What the live entries take in a manifest, roughly: compaction compares it with the
    /// journal and manifest sizes to tell how much of them is dead.
    private(set) var liveRecordBytes: UInt64 = 0

    subscript(key: StoreKey) -> IndexEntry? {
        positions[key].map { records[Int($0)].entry }
    }

    var count: Int { records.count }

    /// Every entry with its key, in no particular order.
    var entries: LazyMapSequence<ContiguousArray<Record>, (key: StoreKey, value: IndexEntry)> {
        records.lazy.map { ($0.key, $0.entry) }
    }

    /// Applies one journal record. Records that no longer match (an eviction of a key that was
    /// overwritten since, an access to a removed key) change nothing.
    mutating func apply(_ record: JournalRecord) {
        switch record {
        case .put(let put):
            let entry = IndexEntry(
                digest: put.digest, size: put.size, created: put.created, lastAccess: put.created,
                expires: put.expires, metadata: put.metadata)
            store(entry, for: put.key)
        case .access(let items):
            for item in items { touch(item.key, at: item.time) }
        case .remove(let key, let digest):
            removeEntry(key, ifDigest: digest)
        case .evict(let key, let digest):
            removeEntry(key, ifDigest: digest)
        }
    }

    /// Adds an entry read from a manifest (creation and access times as they were).
    mutating func insert(_ item: ManifestEntry) {
        store(item.entry, for: item.key)
    }

    /// Makes room for about `count` entries, before a manifest is read into an empty index.
    mutating func reserveCapacity(_ count: Int) {
        records.reserveCapacity(count)
        positions.reserveCapacity(count)
    }

    /// Forgets the garbage list, after its blobs were deleted.
    mutating func clearGarbage() {
        garbage.removeAll()
        garbageBytes = 0
    }

    /// Moves `key`'s last access forward to `time` (never back).
    mutating func touch(_ key: StoreKey, at time: Int64) {
        guard let position = positions[key].map(Int.init), time > records[position].entry.lastAccess else { return }
        records[position].entry.lastAccess = time
    }

    /// Records that this process has checked `digest`'s file (or written it).
    mutating func markVerified(_ digest: SHA256Digest) {
        blobs[digest]?.isVerified = true
    }

    /// Keys ordered from least to most recently accessed (ties by key), for eviction.
    func keysByRecency() -> [StoreKey] {
        (0..<UInt32(records.count)).sorted(by: isLessRecent).map { records[Int($0)].key }
    }

    /// Eviction order of two positions in ``records``: the older access first, the smaller key
    /// on a tie.
    func isLessRecent(_ lhs: UInt32, _ rhs: UInt32) -> Bool {
        let (left, right) = (records[Int(lhs)], records[Int(rhs)])
        return left.entry.lastAccess != right.entry.lastAccess
            ? left.entry.lastAccess < right.entry.lastAccess : left.key < right.key
    }

    /// Keys whose entry refers to `digest`.
    func keys(referring digest: SHA256Digest) -> [StoreKey] {
        entries.compactMap { $0.value.digest == digest ? $0.key : nil }
    }

    // MARK: - Reference counting

    /// Puts `entry` under `key`, replacing (and releasing) what was there.
    private mutating func store(_ entry: IndexEntry, for key: StoreKey) {
        precondition(records.count < UInt32.max, "the index holds at most 2^32 - 1 entries")
        // One hash lookup for a new key (every key of a manifest); an overwrite puts the old
        // position back.
        if let position = positions.updateValue(UInt32(records.count), forKey: key) {
            positions[key] = position
            let old = records[Int(position)].entry
            records[Int(position)].entry = entry
            release(old, key: key)
        } else {
            records.append(Record(key: key, entry: entry))
        }
        retain(entry, key: key)
    }

    private mutating func removeEntry(_ key: StoreKey, ifDigest digest: SHA256Digest?) {
        guard let position = positions[key].map(Int.init), digest == nil || records[position].entry.digest == digest
        else { return }
        let old = records[position].entry
        positions[key] = nil
        let last = records.count - 1
        if position != last {
            records.swapAt(position, last)
            positions[records[position].key] = UInt32(position)
        }
        records.removeLast()
        release(old, key: key)
    }

    /// Manifest bytes of an entry, give or take a few varint bytes.
    private static func recordBytes(_ entry: IndexEntry, key: StoreKey) -> UInt64 {
        UInt64(key.bytes.count + entry.metadata.count + 64)
    }

    private mutating func retain(_ entry: IndexEntry, key: StoreKey) {
        logicalBytes &+= entry.size
        liveRecordBytes &+= Self.recordBytes(entry, key: key)
        var isNew = false
        let added = { () -> BlobReference in
            isNew = true
            return BlobReference(referenceCount: 0, size: entry.size)
        }
        blobs[entry.digest, default: added()].referenceCount += 1
        guard isNew else { return }
        storedBytes &+= entry.size
        if !garbage.isEmpty, let size = garbage.removeValue(forKey: entry.digest) { garbageBytes &-= size }
    }

    private mutating func release(_ entry: IndexEntry, key: StoreKey) {
        logicalBytes &-= entry.size
        liveRecordBytes &-= Self.recordBytes(entry, key: key)
        guard let reference = blobs[entry.digest] else { return }
        if reference.referenceCount <= 1 {
            blobs[entry.digest] = nil
            storedBytes &-= reference.size
            if garbage.updateValue(reference.size, forKey: entry.digest) == nil { garbageBytes &+= reference.size }
        } else {
            blobs[entry.digest]!.referenceCount -= 1
        }
    }
}
