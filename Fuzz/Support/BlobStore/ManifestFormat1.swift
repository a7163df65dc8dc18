// A format-1 manifest encoder for the fuzz harnesses and Fuzz/make-seeds.sh only: the library
// reads format 1 (ManifestReader.read) but no longer writes it. docs/format.md, "Format 1
// manifests":
//
//     file    := header entries* end
//     entries := frame(type 5, count:varint entry{count})
//     entry   := key:bytes digest[32] size:varint created:varint last_access:varint
//                has_expiry:u8 [expires:varint] metadata:bytes        (no location)
//     end     := frame(type 6, total_entries:varint)

@testable import BlobStore

enum ManifestFormat1 {
    /// One format-1 entry: the format-2 entry without its location (which is dropped).
    static func encode(_ item: ManifestEntry, into writer: inout ByteWriter) {
        ManifestWriter.encodeFields(item, into: &writer)
    }

    /// The records of a format-1 manifest of `entries`, in the order given (the bytes after the
    /// 24-byte header): entries records, each closed once its payload reaches
    /// `ManifestFormat.targetPayloadSize` or holds `ManifestFormat.maxEntriesPerRecord` entries,
    /// then the end record. This is what the format-1 writer wrote.
    static func records(_ entries: some Sequence<ManifestEntry>) -> [UInt8] {
        var file = ByteWriter()
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
        var end = ByteWriter()
        end.varint(total)
        JournalRecord.frame(type: ManifestFormat.endType, payload: end.bytes, into: &file)
        return file.bytes
    }
}
