import Synchronization

/// A format-2 manifest read in place (docs/format.md, "Manifest"): opening checks the trailer
/// and the index, which hold every total the store needs; a lookup binary-searches the index,
/// then checks and scans one block. Nothing is decoded into memory until it is asked for, so a
/// store of millions of entries opens in the time it takes to check its index, and entries that
/// are not used stay in the page cache.
///
/// A block that fails its check reads as holding nothing, and the damage is remembered
/// (``damage``): the store's next writer rewrites the manifest from what can still be read.
/// ``forEachEntry(_:)`` and ``forEachBlob(_:)`` read every block and also check the order and
/// the totals.
///
/// The bytes are a read-only mapping of a file that nothing truncates (a manifest is complete
/// and synced before CURRENT names it, and is then only ever unlinked). Instances are shared
/// between copies of an index; they are immutable apart from ``damage``, which has its own lock.
final class ManifestTable: Sendable {
    struct Totals: Equatable, Sendable {
        var entries: UInt64
        var blobs: UInt64
        var logicalBytes: UInt64
        var looseBytes: UInt64
        var liveRecordBytes: UInt64
    }

    let totals: Totals
    let nextPack: UInt32
    /// Every pack the manifest lists, with its end and live bytes.
    let packs: [(number: UInt32, usage: PackUsage)]
    /// The manifest's size in bytes.
    var byteCount: Int { bytes.count }

    private let mapping: FileMapping
    private var bytes: UnsafeRawBufferPointer { mapping.bytes }
    private let keyBlockCount: Int
    private let blobBlockCount: Int
    /// File offset of the index frame, where the last block ends.
    private let indexOffset: Int
    /// File offset of the first block entry of the index (key blocks, then blob blocks).
    private let blockTable: Int
    private let foundDamage = Mutex<String?>(nil)

    /// Checks the trailer and the index of the manifest in `mapping` (header included, checked
    /// by the caller).
    init(_ mapping: FileMapping) throws(ByteReader.Failure) {
        self.mapping = mapping
        let bytes = mapping.bytes
        let minimum = JournalFormat.fileHeaderSize + JournalFormat.recordHeaderSize + ManifestFormat.trailerSize
        guard bytes.count >= minimum else {
            throw ByteReader.Failure(reason: "the manifest is \(bytes.count) bytes, shorter than its least size")
        }
        let trailerStart = bytes.count - ManifestFormat.trailerSize
        var trailer = ByteReader(bytes, position: trailerStart)
        let indexOffset = try trailer.u64()
        guard
            UnsafeRawBufferPointer(rebasing: bytes[trailerStart + 8..<trailerStart + 16])
                .elementsEqual(ManifestFormat.trailerMagic)
        else { throw ByteReader.Failure(reason: "the manifest has no trailer") }
        try trailer.skip(ManifestFormat.trailerMagic.count)
        let stored = try trailer.u32()
        let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[trailerStart..<trailerStart + 16]))
        guard CRC32C.unmask(stored) == crc else { throw ByteReader.Failure(reason: "trailer checksum mismatch") }
        guard indexOffset >= UInt64(JournalFormat.fileHeaderSize), indexOffset < UInt64(trailerStart) else {
            throw ByteReader.Failure(reason: "index offset \(indexOffset) out of range")
        }
        let index = try Self.frame(
            bytes, Int(indexOffset)..<trailerStart, type: ManifestFormat.indexType, what: "the index")
        var reader = ByteReader(index)
        totals = Totals(
            entries: try reader.u64(), blobs: try reader.u64(), logicalBytes: try reader.u64(),
            looseBytes: try reader.u64(), liveRecordBytes: try reader.u64())
        let next = try reader.u32()
        let packCount = Int(try reader.u32())
        keyBlockCount = Int(try reader.u32())
        blobBlockCount = Int(try reader.u32())
        let expected =
            ManifestFormat.indexFixedSize + ManifestFormat.indexPackSize * packCount
            + ManifestFormat.indexBlockSize * (keyBlockCount + blobBlockCount)
        guard index.count == expected else {
            throw ByteReader.Failure(reason: "the index is \(index.count) bytes, its counts make \(expected)")
        }
        guard next >= 1, next <= JournalFormat.maxPackNumber &+ 1, packCount <= ManifestFormat.maxPacks else {
            throw ByteReader.Failure(reason: "next pack number \(next) or pack count \(packCount) out of range")
        }
        nextPack = next
        var packs: [(number: UInt32, usage: PackUsage)] = []
        packs.reserveCapacity(packCount)
        for _ in 0..<packCount {
            let number = try reader.u32()
            let usage = PackUsage(end: try reader.u64(), live: try reader.u64())
            guard number >= 1, number < next, (packs.last?.number ?? 0) < number else {
                throw ByteReader.Failure(reason: "pack number \(number) out of range or order")
            }
            guard usage.end >= PackFormat.headerSize, usage.end <= PackFormat.maximumPackSize,
                usage.live <= usage.end
            else {
                throw ByteReader.Failure(reason: "pack \(number) end \(usage.end) or live \(usage.live) out of range")
            }
            packs.append((number, usage))
        }
        self.packs = packs
        self.indexOffset = Int(indexOffset)
        blockTable = Int(indexOffset) + JournalFormat.recordHeaderSize + reader.position
        guard UInt64(keyBlockCount) <= totals.entries, UInt64(blobBlockCount) <= totals.blobs,
            (keyBlockCount == 0) == (totals.entries == 0), (blobBlockCount == 0) == (totals.blobs == 0)
        else { throw ByteReader.Failure(reason: "the index's block counts disagree with its totals") }
        try checkBlockTable()
    }

    /// The first damage a lookup or scan found in a block, or `nil`.
    var damage: String? { foundDamage.withLock { $0 } }

    // MARK: - Lookups

    /// The entry for `key`, or `nil` when the manifest has none (or its block is damaged).
    func entry(for key: StoreKey) -> ManifestEntry? {
        let hash = ManifestFormat.keyHash(key)
        var block = lastBlock(atMost: hash, in: 0..<keyBlockCount)
        while let current = block {
            do {
                if let found = try find(key, inBlock: current) { return found }
            } catch {
                note("key block \(current): \(error.reason)")
            }
            // Entries with equal hashes may run on from the end of the block before.
            block = current > 0 && first(ofBlock: current) == hash ? current - 1 : nil
        }
        return nil
    }

    /// What the manifest knows of `digest`, or `nil`; a chunked value's recipe only when asked
    /// for (`recipe`): decoding one costs about a microsecond per chunk.
    func blob(_ digest: SHA256Digest, recipe: Bool = false) -> ManifestBlob? {
        let prefix = ManifestFormat.digestPrefix(digest)
        var block = lastBlock(atMost: prefix, in: keyBlockCount..<keyBlockCount + blobBlockCount)
        while let current = block {
            do {
                var found: ManifestBlob? = nil
                try scanBlobs(inBlock: current, recipes: { recipe && $0 == digest }) { blob in
                    if blob.digest == digest { found = blob }
                    return blob.digest < digest
                }
                if let found { return found }
            } catch {
                note("blob block \(current - keyBlockCount): \(error.reason)")
            }
            block = current > keyBlockCount && first(ofBlock: current) == prefix ? current - 1 : nil
        }
        return nil
    }

    // MARK: - Scans

    /// Calls `body` with every entry, in the table's order, reading and checking every block;
    /// damage (a block that fails its check, entries out of order, a count that disagrees with
    /// the index) is noted and the rest is still read.
    func forEachEntry(_ body: (ManifestEntry) -> Void) {
        var previous: (hash: UInt64, key: StoreKey)? = nil
        var count: UInt64 = 0
        for block in 0..<keyBlockCount {
            do {
                var reader = try open(block: block, type: ManifestFormat.entriesType)
                // A block is all or nothing: decoded whole before any of it is handed over.
                var decoded: [ManifestEntry] = []
                while !reader.isAtEnd {
                    decoded.append(try ManifestReader.decodeEntry(&reader, version: JournalFormat.version))
                }
                var isFirst = true
                for entry in decoded {
                    let hash = ManifestFormat.keyHash(entry.key)
                    if let previous, (previous.hash, previous.key) >= (hash, entry.key) {
                        note("key block \(block): entries out of order")
                    }
                    if isFirst, hash != first(ofBlock: block) {
                        note("key block \(block): its first entry's hash is not the index's")
                    }
                    isFirst = false
                    previous = (hash, entry.key)
                    count += 1
                    body(entry)
                }
            } catch {
                note("key block \(block): \(error.reason)")
            }
        }
        if count != totals.entries { note("the key blocks hold \(count) entries, the index counts \(totals.entries)") }
    }

    /// Calls `body` with every blob, in digest order, checking as ``forEachEntry(_:)`` does; with
    /// chunked values' recipes unless `recipes` is false.
    func forEachBlob(recipes: Bool = true, _ body: (ManifestBlob) -> Void) {
        var previous: SHA256Digest? = nil
        var count: UInt64 = 0
        for block in keyBlockCount..<keyBlockCount + blobBlockCount {
            do {
                var decoded: [ManifestBlob] = []
                try scanBlobs(inBlock: block, recipes: { _ in recipes }) { blob in
                    decoded.append(blob)
                    return true
                }
                if let first = decoded.first, ManifestFormat.digestPrefix(first.digest) != self.first(ofBlock: block) {
                    note("blob block \(block - keyBlockCount): its first digest is not the index's")
                }
                for blob in decoded {
                    if let previous, previous >= blob.digest {
                        note("blob block \(block - keyBlockCount): blobs out of order")
                    }
                    previous = blob.digest
                    count += 1
                    body(blob)
                }
            } catch {
                note("blob block \(block - keyBlockCount): \(error.reason)")
            }
        }
        if count != totals.blobs { note("the blob blocks hold \(count) blobs, the index counts \(totals.blobs)") }
    }

    /// Reads and checks every block, and that the blocks agree with each other and with the
    /// index: each blob's references, size and location with the entries and recipes that refer
    /// to it (no chunk is itself chunked), and
    /// every total and pack's live bytes with the blobs. Returns the first damage found, now or
    /// before, or `nil`. Holds one record per distinct blob in memory while it runs.
    func check() -> String? {
        // A chunk's references may come from recipes only: its location is then the blob's own.
        var referring: [SHA256Digest: (count: Int, size: UInt64, location: BlobLocation?)] = [:]
        var logicalBytes: UInt64 = 0
        var liveRecordBytes: UInt64 = 0
        func refer(_ digest: SHA256Digest, size: UInt64, location: BlobLocation?) {
            guard let known = referring[digest] else { return referring[digest] = (1, size, location) }
            if known.size != size || (location != nil && known.location != nil && known.location != location) {
                note("references to blob \(digest) disagree on its size or location")
            }
            referring[digest] = (known.count + 1, size, known.location ?? location)
        }
        forEachEntry { item in
            logicalBytes &+= item.entry.size
            liveRecordBytes &+= StoreIndex.recordBytes(item.entry, key: item.key)
            refer(item.entry.digest, size: item.entry.size, location: item.location)
        }
        var chunks: Set<SHA256Digest> = []
        forEachBlob { blob in
            for chunk in blob.recipe?.chunks ?? [] {
                chunks.insert(chunk.digest)
                refer(chunk.digest, size: UInt64(chunk.length), location: nil)
            }
        }
        var looseBytes: UInt64 = 0
        var live: [UInt32: UInt64] = [:]
        var needleEnds: [UInt32: UInt64] = [:]
        forEachBlob { blob in
            guard let known = referring.removeValue(forKey: blob.digest), known.count == blob.references,
                known.size == blob.size, known.location == nil || known.location == blob.location,
                blob.location != .chunked || !chunks.contains(blob.digest)
            else { return note("blob \(blob.digest) disagrees with the entries and recipes that refer to it") }
            switch blob.location {
            case .loose: looseBytes &+= StoreIndex.allocatedBytes(size: blob.size, location: .loose)
            case .packed(let location):
                let needle = PackFormat.needleSize(blob.size)
                live[location.pack, default: 0] &+= needle
                needleEnds[location.pack] = max(needleEnds[location.pack] ?? 0, location.offset &+ needle)
            case .chunked: break
            }
        }
        if !referring.isEmpty { note("\(referring.count) blobs that entries refer to are not in the blob blocks") }
        if logicalBytes != totals.logicalBytes || looseBytes != totals.looseBytes
            || liveRecordBytes != totals.liveRecordBytes
        {
            note("the index's byte totals disagree with the blocks")
        }
        for (number, usage) in packs {
            let counted = live.removeValue(forKey: number) ?? 0
            if counted != usage.live {
                note("pack \(number): the index counts \(usage.live) live bytes, the blobs \(counted)")
            }
            if let needleEnd = needleEnds[number], needleEnd > usage.end {
                note("pack \(number): a needle ends at \(needleEnd), past the pack's end \(usage.end)")
            }
        }
        if !live.isEmpty { note("blobs in packs the index does not list") }
        return damage
    }

    // MARK: - Blocks

    /// The frame in `range` of `bytes`, which must be exactly one whole, valid frame of `type`.
    private static func frame(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, type: UInt8, what: String
    ) throws(ByteReader.Failure) -> UnsafeRawBufferPointer {
        var payload: UnsafeRawBufferPointer? = nil
        let scan = JournalReader.scanFrames(UnsafeRawBufferPointer(rebasing: bytes[range])) {
            found, body, _ throws(ByteReader.Failure) in
            guard payload == nil else { throw ByteReader.Failure(reason: "\(what) holds more than one record") }
            guard found == type else { throw ByteReader.Failure(reason: "\(what) has record type \(found)") }
            payload = body
        }
        switch scan.ending {
        case .corrupt(_, let reason): throw ByteReader.Failure(reason: reason)
        case .tornTail: throw ByteReader.Failure(reason: "\(what) is cut short")
        case .clean: break
        }
        guard let payload else { throw ByteReader.Failure(reason: "\(what) is empty") }
        return payload
    }

    /// Block `block`'s payload after its count, checked, positioned at its first item.
    private func open(block: Int, type: UInt8) throws(ByteReader.Failure) -> ByteReader {
        let end: Int
        if block + 1 < keyBlockCount + blobBlockCount {
            end = Int(offset(ofBlock: block + 1))
        } else {
            end = indexOffset
        }
        let payload = try Self.frame(bytes, Int(offset(ofBlock: block))..<end, type: type, what: "the block")
        var reader = ByteReader(payload)
        let count = try reader.count(limit: ManifestFormat.maxEntriesPerRecord, what: "item count")
        guard count >= 1 else { throw ByteReader.Failure(reason: "an empty block") }
        return reader
    }

    /// Scans key block `block` for `key`, decoding only the entry that matches.
    private func find(_ key: StoreKey, inBlock block: Int) throws(ByteReader.Failure) -> ManifestEntry? {
        var reader = try open(block: block, type: ManifestFormat.entriesType)
        while !reader.isAtEnd {
            let start = reader.position
            if try reader.lengthPrefixedEquals(key.bytes, limit: JournalFormat.maxKeySize, what: "key length") {
                var again = reader
                again.seek(to: start)
                return try ManifestReader.decodeEntry(&again, version: JournalFormat.version)
            }
            try ManifestReader.skipEntryAfterKey(&reader)
        }
        return nil
    }

    /// Decodes the blobs of blob block `block` in order until `body` returns `false`, with the
    /// recipes of those `recipes` names (all by default).
    private func scanBlobs(
        inBlock block: Int, recipes: (SHA256Digest) -> Bool = { _ in true }, _ body: (ManifestBlob) -> Bool
    ) throws(ByteReader.Failure) {
        var reader = try open(block: block, type: ManifestFormat.blobsType)
        while !reader.isAtEnd {
            guard body(try ManifestReader.decodeBlob(&reader, recipe: recipes)) else { return }
        }
    }

    /// The last block in `range` whose first hash (or digest prefix) is at most `value`.
    private func lastBlock(atMost value: UInt64, in range: Range<Int>) -> Int? {
        var low = range.lowerBound
        var high = range.upperBound
        while low < high {
            let middle = (low + high) / 2
            if first(ofBlock: middle) <= value { low = middle + 1 } else { high = middle }
        }
        return low > range.lowerBound ? low - 1 : nil
    }

    private func first(ofBlock block: Int) -> UInt64 { load(blockTable + ManifestFormat.indexBlockSize * block) }

    private func offset(ofBlock block: Int) -> UInt64 { load(blockTable + ManifestFormat.indexBlockSize * block + 8) }

    private func load(_ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The blocks follow one another from the header to the index, key blocks first hashes and
    /// prefixes never decrease, and every block is at least a frame header long.
    private func checkBlockTable() throws(ByteReader.Failure) {
        var expected = UInt64(JournalFormat.fileHeaderSize)
        for block in 0..<keyBlockCount + blobBlockCount {
            let offset = offset(ofBlock: block)
            guard block == 0 ? offset == expected : offset >= expected, offset < UInt64(indexOffset) else {
                throw ByteReader.Failure(reason: "block \(block) at \(offset) is out of place")
            }
            expected = offset + UInt64(JournalFormat.recordHeaderSize + 1)
            let isFirstOfKind = block == 0 || block == keyBlockCount
            if !isFirstOfKind, first(ofBlock: block) < first(ofBlock: block - 1) {
                throw ByteReader.Failure(reason: "block \(block) is out of order")
            }
        }
        guard keyBlockCount + blobBlockCount == 0 ? UInt64(indexOffset) == expected : UInt64(indexOffset) >= expected
        else { throw ByteReader.Failure(reason: "the index at \(indexOffset) is out of place") }
    }

    private func note(_ reason: String) {
        foundDamage.withLock { if $0 == nil { $0 = reason } }
    }
}
