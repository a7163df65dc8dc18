/// The eviction policy's queue as compaction writes it next to the manifest it describes
/// (`policy-<gen>`; docs/format.md, "The `policy-<N>` file"), so that a process that opens the
/// store later evicts as the one that compacted it would have.
///
/// ```
/// file    := "BLOBPLCY" version:u32le(1) generation:u64le policy:u8 counts_bytes:u8
///            capacity:u64le has_evicted:u8 list* ghost hand masked_crc32c(all before):u32le
/// list    := count:varint (key_hash:u64le mark:u8){count}     oldest first
/// ghost   := count:varint (key_hash:u64le size:varint){count} oldest first
/// hand    := 0 | 1 key_hash:u64le
/// ```
///
/// SIEVE (`policy` 1) has one list (mark: the visited bit), S3-FIFO (`policy` 2) two, the small
/// queue then the main one (mark: the frequency), and a ghost queue. A key is named by its
/// FNV-1a hash (`ManifestFormat.keyHash`), as the manifest orders it: the file holds no key.
/// It is a hint: a file that is missing, damaged, of another generation or made for other
/// limits is ignored, and the queue is rebuilt from the entries' creation times.
struct PolicySnapshot: Equatable, Sendable {
    static let magic: [UInt8] = Array("BLOBPLCY".utf8)
    static let version: UInt32 = 1

    struct Item: Equatable, Sendable {
        var keyHash: UInt64
        var mark: UInt8
    }

    /// A key S3-FIFO's ghost queue remembers, and its size.
    struct Ghost: Equatable, Sendable {
        var keyHash: UInt64
        var size: UInt64
    }

    var generation: UInt64
    var policy: EvictionPolicy
    var countsBytes: Bool
    var capacity: UInt64
    var hasEvicted: Bool
    /// SIEVE's queue, or S3-FIFO's small and main queues, oldest first.
    var lists: [[Item]]
    var ghost: [Ghost]
    var hand: UInt64?

    private static func code(_ policy: EvictionPolicy) -> UInt8 {
        switch policy {
        case .lru: 0
        case .sieve: 1
        case .s3fifo: 2
        }
    }

    /// The most bytes a snapshot of a manifest of `entries` entries takes: its lists name each
    /// entry once (9 bytes), and its ghost queue at most as many keys again and a million more
    /// (a ghost of many small entries; beyond that the snapshot is not read, and the queue starts
    /// from the entries in order of creation).
    static func largestSize(entries: Int) -> Int64 {
        let items = Int64(clamping: entries) * 2 + 1_000_000
        return 64 + items * 19
    }

    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        writer.reserve(64 + lists.reduce(0) { $0 + $1.count * 9 } + ghost.count * 12)
        for byte in Self.magic { writer.u8(byte) }
        writer.u32(Self.version)
        writer.u64(generation)
        writer.u8(Self.code(policy))
        writer.u8(countsBytes ? 1 : 0)
        writer.u64(capacity)
        writer.u8(hasEvicted ? 1 : 0)
        for list in lists {
            writer.varint(UInt64(list.count))
            for item in list {
                writer.u64(item.keyHash)
                writer.u8(item.mark)
            }
        }
        writer.varint(UInt64(ghost.count))
        for item in ghost {
            writer.u64(item.keyHash)
            writer.varint(item.size)
        }
        if let hand {
            writer.u8(1)
            writer.u64(hand)
        } else {
            writer.u8(0)
        }
        SealedBytes.seal(&writer)
        return writer.bytes
    }

    /// Decodes `bytes`; `nil` for anything but a whole, checked snapshot.
    static func decode(_ bytes: [UInt8]) -> PolicySnapshot? {
        SealedBytes.open(bytes) { (reader: inout ByteReader) throws(ByteReader.Failure) in try decode(&reader) }
    }

    /// A byte that must be 0 or 1: every snapshot has one encoding.
    private static func flag(_ reader: inout ByteReader) throws(ByteReader.Failure) -> Bool {
        switch try reader.u8() {
        case 0: false
        case 1: true
        default: throw .init(reason: "a flag other than 0 or 1")
        }
    }

    private static func decode(_ reader: inout ByteReader) throws(ByteReader.Failure) -> PolicySnapshot {
        for byte in magic where try reader.u8() != byte { throw .init(reason: "not a policy snapshot") }
        guard try reader.u32() == version else { throw .init(reason: "another version") }
        let generation = try reader.u64()
        let policy: EvictionPolicy
        switch try reader.u8() {
        case 1: policy = .sieve
        case 2: policy = .s3fifo
        default: throw .init(reason: "unknown policy")
        }
        let countsBytes = try flag(&reader)
        let capacity = try reader.u64()
        let hasEvicted = try flag(&reader)
        var lists: [[Item]] = []
        for _ in 0..<(policy == .sieve ? 1 : 2) {
            let count = try reader.count(limit: reader.remaining / 9, what: "entries")
            var list: [Item] = []
            list.reserveCapacity(count)
            for _ in 0..<count { list.append(Item(keyHash: try reader.u64(), mark: try reader.u8())) }
            lists.append(list)
        }
        let ghostCount = try reader.count(limit: reader.remaining / 9, what: "ghosts")
        var ghost: [Ghost] = []
        ghost.reserveCapacity(ghostCount)
        for _ in 0..<ghostCount { ghost.append(Ghost(keyHash: try reader.u64(), size: try reader.varint())) }
        var hand: UInt64?
        if try flag(&reader) { hand = try reader.u64() }
        guard reader.isAtEnd else { throw .init(reason: "trailing bytes") }
        return PolicySnapshot(
            generation: generation, policy: policy, countsBytes: countsBytes, capacity: capacity,
            hasEvicted: hasEvicted, lists: lists, ghost: ghost, hand: hand)
    }
}
