/// Decodes manifest bytes, checking every frame and the end record's count.
enum ManifestReader {
    /// What reading a manifest found.
    struct Result: Equatable, Sendable {
        /// Entries handed to the caller (all of them when ``damage`` is `nil`).
        var entries: Int
        /// Why the manifest is not whole, or `nil`. Entries before the damage were still read.
        var damage: String?
    }

    /// Reads the records after the file header, calling `body` for each entry in order and
    /// `packs` for the pack table.
    ///
    /// - Parameters:
    ///   - bytes: The manifest without its 24-byte header.
    ///   - version: The format version its header gives (1 has no locations and no pack table).
    static func read(
        _ bytes: UnsafeRawBufferPointer, version: UInt32 = JournalFormat.version,
        packs: (ManifestPackTable) -> Void = { _ in },
        _ body: (ManifestEntry) -> Void
    ) -> Result {
        var entries = 0
        var declared: UInt64? = nil
        var sawPacks = false
        let scan = JournalReader.scanFrames(bytes) { type, payload, _ throws(ByteReader.Failure) in
            guard declared == nil else { throw ByteReader.Failure(reason: "record after the end record") }
            var reader = ByteReader(payload)
            switch type {
            case ManifestFormat.entriesType:
                let count = try reader.count(limit: ManifestFormat.maxEntriesPerRecord, what: "entry count")
                // Decode the whole record before handing any of it over: a record is all or nothing.
                var decoded: [ManifestEntry] = []
                decoded.reserveCapacity(min(count, reader.remaining / 40))
                for _ in 0..<count { decoded.append(try decodeEntry(&reader, version: version)) }
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
            case ManifestFormat.packsType where version >= 2:
                guard !sawPacks else { throw ByteReader.Failure(reason: "a second pack table") }
                sawPacks = true
                packs(try decodePackTable(&reader))
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

    private static func decodePackTable(_ reader: inout ByteReader) throws(ByteReader.Failure) -> ManifestPackTable {
        let next = try reader.varint()
        guard next >= 1, next <= UInt64(JournalFormat.maxPackNumber) + 1 else {
            throw ByteReader.Failure(reason: "next pack number \(next) out of range")
        }
        let count = try reader.count(limit: ManifestFormat.maxPacks, what: "pack count")
        var packs: [ManifestPackTable.Pack] = []
        packs.reserveCapacity(min(count, reader.remaining / 2))
        for _ in 0..<count {
            let number = try reader.varint()
            let end = try reader.varint()
            guard number >= 1, number < next else {
                throw ByteReader.Failure(reason: "pack number \(number) out of range")
            }
            guard end >= PackFormat.headerSize, end <= PackFormat.maximumPackSize else {
                throw ByteReader.Failure(reason: "pack end \(end) out of range")
            }
            packs.append(.init(number: UInt32(number), end: end))
        }
        guard reader.isAtEnd else { throw ByteReader.Failure(reason: "trailing bytes in the pack table") }
        return ManifestPackTable(nextPack: UInt32(next), packs: packs)
    }

    private static func decodeEntry(_ reader: inout ByteReader, version: UInt32) throws(ByteReader.Failure)
        -> ManifestEntry
    {
        let key = try JournalRecord.readKey(&reader)
        let digest = try JournalRecord.readDigest(&reader)
        let size = try reader.varint()
        let created = try reader.time()
        let lastAccess = try reader.time()
        let expires = try reader.optionalTime(what: "expiry")
        let metadata = try reader.lengthPrefixed(limit: JournalFormat.maxMetadataSize, what: "metadata length")
        var location = BlobLocation.loose
        if version >= 2 {
            switch try reader.u8() {
            case 0: break
            case 1: location = .packed(try JournalRecord.readPackLocation(&reader, size: size))
            case let tag: throw ByteReader.Failure(reason: "bad location tag \(tag)")
            }
        }
        return ManifestEntry(
            key: key,
            entry: IndexEntry(
                digest: digest, size: size, created: created, lastAccess: lastAccess, expires: expires,
                metadata: metadata),
            location: location)
    }
}
