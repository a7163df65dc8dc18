/// Encodes a snapshot of entries as manifest bytes (header, entries records, end record).
enum ManifestWriter {
    /// The whole manifest for `entries`, in the order given, and `packs`.
    static func encode(
        generation: UInt64, entries: some Sequence<ManifestEntry>,
        packs: ManifestPackTable = ManifestPackTable(nextPack: 1, packs: [])
    ) -> [UInt8] {
        var file = ByteWriter()
        file.raw(JournalHeader(generation: generation, magic: ManifestFormat.magic).encoded)
        var payload = ByteWriter()
        var inRecord = 0
        var total: UInt64 = 0
        func closeRecord() {
            guard inRecord > 0 else { return }
            var record = ByteWriter()
            record.varint(UInt64(inRecord))
            record.raw(payload.bytes)
            JournalRecord.frame(type: ManifestFormat.entriesType, payload: record.bytes, into: &file)
            payload = ByteWriter()
            inRecord = 0
        }
        for item in entries {
            encode(item, into: &payload)
            inRecord += 1
            total += 1
            if payload.bytes.count >= ManifestFormat.targetPayloadSize || inRecord == ManifestFormat.maxEntriesPerRecord
            {
                closeRecord()
            }
        }
        closeRecord()
        var table = ByteWriter()
        table.varint(UInt64(packs.nextPack))
        table.varint(UInt64(packs.packs.count))
        for pack in packs.packs {
            table.varint(UInt64(pack.number))
            table.varint(pack.end)
        }
        JournalRecord.frame(type: ManifestFormat.packsType, payload: table.bytes, into: &file)
        var end = ByteWriter()
        end.varint(total)
        JournalRecord.frame(type: ManifestFormat.endType, payload: end.bytes, into: &file)
        return file.bytes
    }

    static func encode(_ item: ManifestEntry, into writer: inout ByteWriter) {
        let entry = item.entry
        writer.lengthPrefixed(item.key.bytes)
        writer.raw(entry.digest.bytes)
        writer.varint(entry.size)
        writer.time(entry.created)
        writer.time(entry.lastAccess)
        writer.optionalTime(entry.expires)
        writer.lengthPrefixed(entry.metadata)
        if let location = item.location.packed {
            writer.u8(1)
            JournalRecord.encode(location, into: &writer)
        } else {
            writer.u8(0)
        }
    }
}
