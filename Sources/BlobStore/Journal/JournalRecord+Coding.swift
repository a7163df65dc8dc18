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

    /// Appends the framed record (header and payload) to `writer`.
    func frame(into writer: inout ByteWriter) {
        var payload = ByteWriter()
        encodePayload(into: &payload)
        Self.frame(type: type.rawValue, payload: payload.bytes, into: &writer)
    }

    /// Frames any payload bytes as a record of type `type` (tests and fuzzing frame payloads the
    /// encoder would never write).
    static func frame(type: UInt8, payload: [UInt8], into writer: inout ByteWriter) {
        let payloadCRC = payload.withUnsafeBytes { CRC32C.checksum($0) }
        writer.raw(header(length: UInt32(payload.count), type: type, payloadCRC: CRC32C.mask(payloadCRC)))
        writer.raw(payload)
    }

    /// The 13-byte record header, with its checksum computed over the 9 bytes before it.
    static func header(length: UInt32, type: UInt8, payloadCRC maskedPayloadCRC: UInt32) -> [UInt8] {
        var header = ByteWriter()
        header.u32(length)
        header.u8(type)
        header.u32(maskedPayloadCRC)
        let headerCRC = header.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        header.u32(CRC32C.mask(headerCRC))
        return header.bytes
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
            writer.raw(put.digest.bytes)
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
            writer.raw(move.digest.bytes)
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
                writer.raw(digest.bytes)
            } else {
                writer.u8(0)
            }
        case .evict(let key, let digest):
            writer.lengthPrefixed(key.bytes)
            writer.raw(digest.bytes)
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
