// MARK: - Payload encoding (docs/format.md, "Records")

extension JournalRecord {
    var type: JournalFormat.RecordType {
        switch self {
        case .put(let put):
            switch put.location {
            case .loose: .put
            case .packed: .packedPut
            case .chunked: .chunkedPut
            }
        case .relocate: .relocate
        case .access: .access
        case .remove: .remove
        case .evict: .evict
        }
    }

    /// Appends the framed record (header and payload) to `writer`: the payload is encoded in
    /// place after room for the header, which is filled in once the payload's length and
    /// checksum are known (no array of its own for either, per record).
    func frame(into writer: inout ByteWriter) {
        writer.reserve(JournalFormat.recordHeaderSize + payloadSizeHint)
        let start = writer.bytes.count
        writer.zeros(JournalFormat.recordHeaderSize)
        encodePayload(into: &writer)
        Self.fillHeader(of: &writer, at: start, type: type.rawValue)
    }

    /// Frames any payload bytes as a record of type `type` (tests and fuzzing frame payloads the
    /// encoder would never write).
    static func frame(type: UInt8, payload: [UInt8], into writer: inout ByteWriter) {
        let start = writer.bytes.count
        writer.zeros(JournalFormat.recordHeaderSize)
        writer.raw(payload)
        fillHeader(of: &writer, at: start, type: type)
    }

    /// Fills in the header at `start` in `writer` of the record whose payload follows it to the
    /// end of `writer`.
    private static func fillHeader(of writer: inout ByteWriter, at start: Int, type: UInt8) {
        let payloadStart = start + JournalFormat.recordHeaderSize
        let payloadCRC = writer.bytes.withUnsafeBytes {
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[payloadStart...]))
        }
        writeHeader(
            into: &writer, at: start, length: UInt32(writer.bytes.count - payloadStart), type: type,
            payloadCRC: CRC32C.mask(payloadCRC))
    }

    /// The 13-byte record header, with its checksum computed over the 9 bytes before it.
    static func header(length: UInt32, type: UInt8, payloadCRC maskedPayloadCRC: UInt32) -> [UInt8] {
        var header = ByteWriter()
        header.zeros(JournalFormat.recordHeaderSize)
        writeHeader(into: &header, at: 0, length: length, type: type, payloadCRC: maskedPayloadCRC)
        return header.bytes
    }

    /// Writes a record header over the 13 bytes at `start` in `writer`: the payload's length, the
    /// type, the payload's masked checksum, and the masked checksum of those 9 bytes.
    private static func writeHeader(
        into writer: inout ByteWriter, at start: Int, length: UInt32, type: UInt8, payloadCRC maskedPayloadCRC: UInt32
    ) {
        writer.patchU32(length, at: start)
        writer.patchU8(type, at: start + 4)
        writer.patchU32(maskedPayloadCRC, at: start + 5)
        let checked = start..<(start + JournalFormat.recordHeaderCheckedSize)
        let headerCRC = writer.bytes.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[checked])) }
        writer.patchU32(CRC32C.mask(headerCRC), at: start + JournalFormat.recordHeaderCheckedSize)
    }

    /// About how many bytes the payload takes, for room reserved at once: the variable parts of
    /// a put (key, metadata, a recipe's chunks) and of an access record, and a bound on the rest.
    private var payloadSizeHint: Int {
        switch self {
        case .put(let put):
            put.key.bytes.count + put.metadata.count + 96 + (put.recipe.map { $0.locations.count * 64 } ?? 0)
        case .access(let items): items.reduce(10) { $0 + $1.key.bytes.count + 11 }
        case .remove(let key, _), .evict(let key, _): key.bytes.count + 48
        case .relocate: 128
        }
    }

    /// The framed record as bytes.
    var framed: [UInt8] {
        var writer = ByteWriter()
        frame(into: &writer)
        return writer.bytes
    }

    private func encodePayload(into writer: inout ByteWriter) {
        switch self {
        case .put(let put):
            writer.lengthPrefixed(put.key.bytes)
            writer.digest(put.digest)
            writer.varint(put.size)
            writer.time(put.created)
            writer.optionalTime(put.expires)
            writer.lengthPrefixed(put.metadata)
            switch put.location {
            case .loose: break
            case .packed(let location): Self.encode(location, into: &writer)
            case .chunked:
                guard let recipe = put.recipe else { preconditionFailure("a chunked put record without its recipe") }
                recipe.encode(into: &writer)
            }
        case .relocate(let move):
            writer.digest(move.digest)
            writer.varint(move.size)
            Self.encode(move.from, into: &writer)
            Self.encode(move.to, into: &writer)
        case .access(let items):
            writer.varint(UInt64(items.count))
            for item in items {
                writer.lengthPrefixed(item.key.bytes)
                writer.time(item.time)
            }
        case .remove(let key, let digest):
            writer.lengthPrefixed(key.bytes)
            if let digest {
                writer.u8(1)
                writer.digest(digest)
            } else {
                writer.u8(0)
            }
        case .evict(let key, let digest):
            writer.lengthPrefixed(key.bytes)
            writer.digest(digest)
        }
    }

    /// Decodes a payload whose CRC has been checked. Any malformation throws; nothing traps.
    static func decode(type rawType: UInt8, payload: UnsafeRawBufferPointer) throws(ByteReader.Failure) -> JournalRecord
    {
        guard let type = JournalFormat.RecordType(rawValue: rawType) else {
            throw ByteReader.Failure(reason: "unknown record type \(rawType)")
        }
        var reader = ByteReader(payload)
        let record: JournalRecord
        switch type {
        case .put, .packedPut, .chunkedPut:
            let key = try readKey(&reader)
            let digest = try readDigest(&reader)
            let size = try reader.varint()
            let created = try reader.time()
            let expires = try reader.optionalTime(what: "expiry")
            let metadata = try reader.lengthPrefixed(limit: JournalFormat.maxMetadataSize, what: "metadata length")
            var put = PutRecord(
                key: key, digest: digest, size: size, created: created, expires: expires, metadata: metadata)
            switch type {
            case .packedPut: put.location = .packed(try readPackLocation(&reader, size: size))
            case .chunkedPut:
                put.location = .chunked
                put.recipe = try PlacedRecipe.decode(&reader, digest: digest, size: size)
            default: break
            }
            record = .put(put)
        case .relocate:
            let digest = try readDigest(&reader)
            let size = try reader.varint()
            let from = try readPackLocation(&reader, size: size)
            let to = try readPackLocation(&reader, size: size)
            record = .relocate(RelocateRecord(digest: digest, size: size, from: from, to: to))
        case .access:
            let count = try reader.count(limit: JournalFormat.maxAccessItems, what: "access count")
            var items: [AccessItem] = []
            items.reserveCapacity(min(count, reader.remaining / 2))
            for _ in 0..<count {
                let key = try readKey(&reader)
                items.append(AccessItem(key: key, time: try reader.time()))
            }
            record = .access(items)
        case .remove:
            let key = try readKey(&reader)
            switch try reader.u8() {
            case 0: record = .remove(key: key, digest: nil)
            case 1: record = .remove(key: key, digest: try readDigest(&reader))
            case let flag: throw ByteReader.Failure(reason: "bad remove flag \(flag)")
            }
        case .evict:
            let key = try readKey(&reader)
            record = .evict(key: key, digest: try readDigest(&reader))
        }
        guard reader.isAtEnd else { throw ByteReader.Failure(reason: "\(reader.remaining) trailing bytes in record") }
        return record
    }

    static func readKey(_ reader: inout ByteReader) throws(ByteReader.Failure) -> StoreKey {
        StoreKey(bytes: try reader.lengthPrefixed(limit: JournalFormat.maxKeySize, what: "key length"))
    }

    static func readDigest(_ reader: inout ByteReader) throws(ByteReader.Failure) -> SHA256Digest {
        try reader.digest()
    }

    /// `pack:varint offset:varint`.
    static func encode(_ location: PackLocation, into writer: inout ByteWriter) {
        writer.varint(UInt64(location.pack))
        writer.varint(location.offset)
    }

    /// Reads a pack location for a needle of `size` bytes and checks that it fits a pack: a
    /// number from 1 to ``JournalFormat/maxPackNumber``, a value no larger than
    /// ``PackFormat/maximumPackedValue``, after the pack's header and within
    /// ``PackFormat/maximumPackSize``. So no index ever holds a needle that cannot exist.
    static func readPackLocation(_ reader: inout ByteReader, size: UInt64) throws(ByteReader.Failure) -> PackLocation {
        let pack = try reader.varint()
        let offset = try reader.varint()
        guard pack >= 1, pack <= UInt64(JournalFormat.maxPackNumber) else {
            throw ByteReader.Failure(reason: "pack number \(pack) out of range")
        }
        guard size <= UInt64(PackFormat.maximumPackedValue) else {
            throw ByteReader.Failure(reason: "a packed value of \(size) bytes is larger than packs hold")
        }
        guard offset >= PackFormat.headerSize, offset <= PackFormat.maximumPackSize - PackFormat.needleSize(size)
        else {
            throw ByteReader.Failure(reason: "needle offset \(offset) outside a pack")
        }
        return PackLocation(pack: UInt32(pack), offset: offset)
    }
}
