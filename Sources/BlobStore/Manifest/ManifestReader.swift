/// Decodes manifest bytes, checking every frame and the end record's count.
enum ManifestReader {
    /// What reading a manifest found.
    struct Result: Equatable, Sendable {
        /// Entries handed to the caller (all of them when ``damage`` is `nil`).
        var entries: Int
        /// Why the manifest is not whole, or `nil`. Entries before the damage were still read.
        var damage: String?
    }

    /// Reads the records after the file header, calling `body` for each entry in order.
    ///
    /// - Parameter bytes: The manifest without its 24-byte header.
    static func read(_ bytes: UnsafeRawBufferPointer, _ body: (ManifestEntry) -> Void) -> Result {
        var entries = 0
        var declared: UInt64? = nil
        let scan = JournalReader.scanFrames(bytes) { type, payload, _ throws(ByteReader.Failure) in
            guard declared == nil else { throw ByteReader.Failure(reason: "record after the end record") }
            var reader = ByteReader(payload)
            switch type {
            case ManifestFormat.entriesType:
                let count = try reader.count(limit: ManifestFormat.maxEntriesPerRecord, what: "entry count")
                // Decode the whole record before handing any of it over: a record is all or nothing.
                var decoded: [ManifestEntry] = []
                decoded.reserveCapacity(min(count, reader.remaining / 40))
                for _ in 0..<count { decoded.append(try decodeEntry(&reader)) }
                guard reader.isAtEnd else {
                    throw ByteReader.Failure(reason: "\(reader.remaining) trailing bytes in record")
                }
                for entry in decoded { body(entry) }
                entries += decoded.count
            case ManifestFormat.endType:
                let total = try reader.varint()
                guard reader.isAtEnd else { throw ByteReader.Failure(reason: "trailing bytes in the end record") }
                guard total == UInt64(entries) else {
                    throw ByteReader.Failure(reason: "end record counts \(total) entries, the records hold \(entries)")
                }
                declared = total
            default:
                throw ByteReader.Failure(reason: "unknown manifest record type \(type)")
            }
        }
        switch scan.ending {
        case .corrupt(_, let reason):
            return Result(entries: entries, damage: reason)
        case .tornTail, .clean:
            if declared == nil { return Result(entries: entries, damage: "the manifest ends before its end record") }
            if case .tornTail = scan.ending { return Result(entries: entries, damage: "bytes after the end record") }
            return Result(entries: entries, damage: nil)
        }
    }

    private static func decodeEntry(_ reader: inout ByteReader) throws(ByteReader.Failure) -> ManifestEntry {
        let key = try JournalRecord.readKey(&reader)
        let digest = try JournalRecord.readDigest(&reader)
        let size = try reader.varint()
        let created = try reader.time()
        let lastAccess = try reader.time()
        let expires = try reader.optionalTime(what: "expiry")
        let metadata = try reader.lengthPrefixed(limit: JournalFormat.maxMetadataSize, what: "metadata length")
        return ManifestEntry(
            key: key,
            entry: IndexEntry(
                digest: digest, size: size, created: created, lastAccess: lastAccess, expires: expires,
                metadata: metadata))
    }
}
