/// Decodes a format-1 manifest, checking every frame and the end record's count, and the
/// entries and blobs of format-2 blocks (``ManifestTable``).
enum ManifestReader {
    /// What reading a manifest found.
    struct Result: Equatable, Sendable {
        /// Entries handed to the caller (all of them when ``damage`` is `nil`).
        var entries: Int
        /// Why the manifest is not whole, or `nil`. Entries before the damage were still read.
        var damage: String?
    }

    /// Reads the records of a format-1 manifest after its file header, calling `body` for each
    /// entry in order.
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
                for _ in 0..<count { decoded.append(try decodeEntry(&reader, version: 1)) }
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

    /// One entry; version 1 has no location.
    static func decodeEntry(_ reader: inout ByteReader, version: UInt32) throws(ByteReader.Failure)
        -> ManifestEntry
    {
        let key = try JournalRecord.readKey(&reader)
        let digest = try JournalRecord.readDigest(&reader)
        let size = try reader.varint()
        let created = try reader.time()
        let lastAccess = try reader.time()
        let expires = try reader.optionalTime(what: "expiry")
        let metadata = try reader.lengthPrefixed(limit: JournalFormat.maxMetadataSize, what: "metadata length")
        let location = version >= 2 ? try BlobLocation.decode(&reader, size: size, chunked: true) : .loose
        return ManifestEntry(
            key: key,
            entry: IndexEntry(
                digest: digest, size: size, created: created, lastAccess: lastAccess, expires: expires,
                metadata: metadata),
            location: location)
    }

    /// Moves past the rest of a format-2 entry whose key was just read.
    static func skipEntryAfterKey(_ reader: inout ByteReader) throws(ByteReader.Failure) {
        try reader.skip(SHA256Digest.byteCount)
        let size = try reader.varint()
        _ = try reader.varint()
        _ = try reader.varint()
        _ = try reader.optionalTime(what: "expiry")
        try reader.skip(try reader.count(limit: JournalFormat.maxMetadataSize, what: "metadata length"))
        _ = try BlobLocation.decode(&reader, size: size, chunked: true)
    }

    /// One blob of a format-2 blob block; a chunked value's recipe is decoded only when
    /// `recipe` says so of its digest, and skipped otherwise (a lookup passes over the recipes of
    /// other blobs).
    static func decodeBlob(
        _ reader: inout ByteReader, recipe: (SHA256Digest) -> Bool = { _ in true }
    ) throws(ByteReader.Failure) -> ManifestBlob {
        let digest = try JournalRecord.readDigest(&reader)
        let size = try reader.varint()
        let references = try reader.varint()
        guard references >= 1, references <= UInt64(UInt32.max) else {
            throw ByteReader.Failure(reason: "reference count \(references) out of range")
        }
        let location = try BlobLocation.decode(&reader, size: size, chunked: true)
        var blob = ManifestBlob(digest: digest, size: size, references: Int(references), location: location)
        if location == .chunked {
            if recipe(digest) {
                blob.recipe = try PlacedRecipe.readRecipe(&reader, digest: digest, size: size)
            } else {
                try reader.skip(try reader.count(limit: JournalFormat.maxPayloadSize, what: "recipe length"))
            }
        }
        return blob
    }
}
