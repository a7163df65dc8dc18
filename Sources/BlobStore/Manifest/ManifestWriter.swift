/// Encodes a snapshot of entries as a format-2 manifest (docs/format.md, "Manifest"): the key
/// blocks, the blob blocks, the index and the trailer. Every total and table in the index is
/// computed here from the entries written, so a manifest is consistent by construction.
enum ManifestWriter {
    /// The whole manifest for `entries` (in any order; the writer sorts them), the `recipes` of
    /// the chunked values they refer to, and `packs`. A chunked entry whose recipe is not among
    /// `recipes` is left out (it could not be read), and so is a recipe no entry refers to.
    ///
    /// Every entry that refers to one digest must give the same location, and so must every
    /// recipe that names one chunk (and an entry that refers to it).
    static func encode(
        generation: UInt64, entries: [ManifestEntry], recipes: [PlacedRecipe] = [],
        packs: ManifestPackTable = ManifestPackTable(nextPack: 1, packs: [])
    ) -> [UInt8] {
        var file = ByteWriter()
        file.raw(JournalHeader(generation: generation, magic: ManifestFormat.magic).encoded)
        var entries = entries
        let recipes = Dictionary(recipes.map { ($0.recipe.digest, $0) }, uniquingKeysWith: { first, _ in first })
        entries.removeAll { $0.location == .chunked && recipes[$0.entry.digest] == nil }

        let order = entries.indices.map { (hash: ManifestFormat.keyHash(entries[$0].key), position: $0) }.sorted {
            $0.hash != $1.hash ? $0.hash < $1.hash : entries[$0.position].key < entries[$1.position].key
        }
        var totals = Totals()
        var blobs: [SHA256Digest: ManifestBlob] = [:]
        var keyBlocks: [(first: UInt64, offset: UInt64)] = []
        var block = BlockWriter(type: ManifestFormat.entriesType)
        for (hash, position) in order {
            let item = entries[position]
            block.add(into: &file, starting: { keyBlocks.append((hash, $0)) }) { encode(item, into: &$0) }
            totals.entries &+= 1
            totals.logicalBytes &+= item.entry.size
            totals.liveRecordBytes &+= StoreIndex.recordBytes(item.entry, key: item.key)
            blobs[
                item.entry.digest,
                default: ManifestBlob(
                    digest: item.entry.digest, size: item.entry.size, references: 0, location: item.location)
            ].references += 1
        }
        block.close(into: &file)
        // Each chunked value's chunks, once per occurrence in its recipe.
        for (digest, placed) in recipes where blobs[digest]?.location == .chunked {
            blobs[digest]!.recipe = placed.recipe
            for (chunk, location) in zip(placed.recipe.chunks, placed.locations) {
                blobs[
                    chunk.digest,
                    default: ManifestBlob(
                        digest: chunk.digest, size: UInt64(chunk.length), references: 0, location: location)
                ].references += 1
            }
        }

        var usage: [UInt32: PackUsage] = [:]
        for pack in packs.packs { usage[pack.number, default: PackUsage()].end = pack.end }
        var blobBlocks: [(first: UInt64, offset: UInt64)] = []
        block = BlockWriter(type: ManifestFormat.blobsType)
        for blob in blobs.values.sorted(by: { $0.digest < $1.digest }) {
            block.add(into: &file, starting: { blobBlocks.append((ManifestFormat.digestPrefix(blob.digest), $0)) }) {
                encode(blob, into: &$0)
            }
            totals.blobs &+= 1
            switch blob.location {
            case .loose:
                totals.looseBytes &+= StoreIndex.allocatedBytes(size: blob.size, location: .loose)
            case .packed(let location):
                let needle = PackFormat.needleSize(blob.size)
                usage[location.pack, default: PackUsage()].live &+= needle
                usage[location.pack]!.end = max(usage[location.pack]!.end, location.offset &+ needle)
            case .chunked:
                break
            }
        }
        block.close(into: &file)

        let indexOffset = UInt64(file.bytes.count)
        var index = ByteWriter()
        index.u64(totals.entries)
        index.u64(totals.blobs)
        index.u64(totals.logicalBytes)
        index.u64(totals.looseBytes)
        index.u64(totals.liveRecordBytes)
        index.u32(max(packs.nextPack, (usage.keys.max() ?? 0) &+ 1))
        index.u32(UInt32(usage.count))
        index.u32(UInt32(keyBlocks.count))
        index.u32(UInt32(blobBlocks.count))
        for (number, pack) in usage.sorted(by: { $0.key < $1.key }) {
            index.u32(number)
            index.u64(pack.end)
            index.u64(pack.live)
        }
        for (first, offset) in keyBlocks + blobBlocks {
            index.u64(first)
            index.u64(offset)
        }
        JournalRecord.frame(type: ManifestFormat.indexType, payload: index.bytes, into: &file)
        file.raw(trailer(indexOffset: indexOffset))
        return file.bytes
    }

    /// The 20-byte trailer that points at the index.
    static func trailer(indexOffset: UInt64) -> [UInt8] {
        var trailer = ByteWriter()
        trailer.u64(indexOffset)
        trailer.raw(ManifestFormat.trailerMagic)
        let crc = trailer.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        trailer.u32(CRC32C.mask(crc))
        return trailer.bytes
    }

    /// One entry: its fields (``encodeFields(_:into:)``) and a location.
    static func encode(_ item: ManifestEntry, into writer: inout ByteWriter) {
        encodeFields(item, into: &writer)
        item.location.encode(into: &writer)
    }

    /// An entry's fields, without its location: a journal `put` payload with `last_access`
    /// after `created`. A format-1 manifest entry is exactly this.
    static func encodeFields(_ item: ManifestEntry, into writer: inout ByteWriter) {
        let entry = item.entry
        writer.lengthPrefixed(item.key.bytes)
        writer.digest(entry.digest)
        writer.varint(entry.size)
        writer.time(entry.created)
        writer.time(entry.lastAccess)
        writer.optionalTime(entry.expires)
        writer.lengthPrefixed(entry.metadata)
    }

    static func encode(_ blob: ManifestBlob, into writer: inout ByteWriter) {
        writer.digest(blob.digest)
        writer.varint(blob.size)
        writer.varint(UInt64(blob.references))
        blob.location.encode(into: &writer)
        if let recipe = blob.recipe { writer.lengthPrefixed(recipe.encoded()) }
    }

    /// The totals the index records.
    private struct Totals {
        var entries: UInt64 = 0
        var blobs: UInt64 = 0
        var logicalBytes: UInt64 = 0
        var looseBytes: UInt64 = 0
        var liveRecordBytes: UInt64 = 0
    }

    /// The block being filled: its payload after the count, and the count.
    private struct BlockWriter {
        let type: UInt8
        var payload = ByteWriter()
        var count = 0

        init(type: UInt8) { self.type = type }

        var isFull: Bool {
            payload.bytes.count >= ManifestFormat.targetBlockSize || count == ManifestFormat.maxEntriesPerRecord
        }

        /// Adds the item `encode` writes, calling `starting` with the file offset of the block it
        /// begins, if it begins one. An item of the target size or more gets a block of its own,
        /// so that a lookup of a small item next to it (a chunk beside a large recipe) checks
        /// about a kilobyte, not the large item too: the items before it are closed into their
        /// block first (only then is anything copied).
        mutating func add(
            into file: inout ByteWriter, starting: (UInt64) -> Void, _ encode: (inout ByteWriter) -> Void
        ) {
            let start = payload.bytes.count
            encode(&payload)
            if count > 0, payload.bytes.count - start >= ManifestFormat.targetBlockSize {
                let item = Array(payload.bytes[start...])
                var before = ByteWriter()
                before.raw(Array(payload.bytes[..<start]))
                payload = before
                close(into: &file)
                payload.raw(item)
            }
            if count == 0 { starting(UInt64(file.bytes.count)) }
            count += 1
            if isFull { close(into: &file) }
        }

        /// Frames the block into `file` (nothing for an empty block) and starts the next.
        mutating func close(into file: inout ByteWriter) {
            guard count > 0 else { return }
            var record = ByteWriter()
            record.varint(UInt64(count))
            record.raw(payload.bytes)
            JournalRecord.frame(type: type, payload: record.bytes, into: &file)
            payload = ByteWriter()
            count = 0
        }
    }
}
