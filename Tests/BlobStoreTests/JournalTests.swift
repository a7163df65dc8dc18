import Foundation
import Testing

@testable import BlobStore

/// Records of every type, with awkward keys.
func sampleRecords(_ count: Int) -> [JournalRecord] {
    (0..<count).map { index in
        let key = StoreKey(bytes: Array("key/../\(index)".utf8) + [0, UInt8(index % 256)])
        let digest = SHA256Hasher.hash(Data("content \(index % 7)"))
        switch index % 4 {
        case 0, 1:
            // Every other put is packed (record type 7); every eighth record a relocate (type 8).
            if index % 8 == 1 {
                return .relocate(
                    JournalRecord.RelocateRecord(
                        digest: digest, size: UInt64(index * 100), from: PackLocation(pack: 1, offset: 24),
                        to: PackLocation(pack: UInt32(index), offset: UInt64(24 + index * 136))))
            }
            return .put(
                JournalRecord.PutRecord(
                    key: key, digest: digest, size: UInt64(index * 100), created: 1_700_000_000_000 + Int64(index),
                    expires: index % 8 == 0 ? nil : 1_800_000_000_000, metadata: Array("meta\(index)".utf8),
                    location: index % 4 == 0 ? .loose : .packed(PackLocation(pack: 2, offset: UInt64(24 + index)))))
        case 2:
            return .access([
                JournalRecord.AccessItem(key: key, time: 1_700_000_000_500),
                JournalRecord.AccessItem(key: StoreKey("other"), time: 42),
            ])
        default:
            return index % 8 == 3 ? .remove(key: key, digest: nil) : .evict(key: key, digest: digest)
        }
    }
}

/// The varint encoding of `value`.
func hugeVarint(_ value: UInt64) -> [UInt8] {
    var writer = ByteWriter()
    writer.varint(value)
    return writer.bytes
}

/// A put payload up to its metadata length: key `k`, a digest, size, created, no expiry.
func putPrefix() -> [UInt8] {
    var writer = ByteWriter()
    writer.lengthPrefixed(Array("k".utf8))
    writer.raw(SHA256Hasher.hash(Data()).bytes)
    writer.varint(0)
    writer.time(0)
    writer.optionalTime(nil)
    return writer.bytes
}

func framedJournalBody(_ records: [JournalRecord]) -> [UInt8] {
    var writer = ByteWriter()
    for record in records { record.frame(into: &writer) }
    return writer.bytes
}

func scan(_ bytes: [UInt8]) -> ([JournalRecord], JournalReader.Scan) {
    var records: [JournalRecord] = []
    let result = bytes.withUnsafeBytes { JournalReader.scan($0) { record, _ in records.append(record) } }
    return (records, result)
}

@Suite struct JournalFormatTests {
    /// The examples in docs/format.md, produced there by an independent encoder: the 82-byte
    /// journal of one packed put, the 65-byte pack holding its needle, the 282-byte manifest of
    /// the store after a compaction, the 195-byte record of a chunked put, and the 80-byte
    /// format-1 journal of one loose put.
    @Test func workedExamplesOfDocsFormatMd() {
        let hello = Data("hello")
        let digest = SHA256Hasher.hash(hello)
        func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

        let packed = JournalRecord.put(
            .init(
                key: "a", digest: digest, size: 5, created: 1_700_000_000_000, expires: nil, metadata: [],
                location: .packed(PackLocation(pack: 1, offset: 24))))
        #expect(
            hex(JournalHeader(generation: 1).encoded + packed.framed)
                == "424c4f424a524e4c030000000100000000000000effb92612d00000007d66e90601995d21401612cf24dba5f"
                + "b0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240580d095ffbc3100000118")

        #expect(
            hex(PackFormat.header(1) + PackFormat.needleHeader(size: 5, digest: digest) + Array(hello))
                == "424c4f425041434b01000000010000000000000098aba06a050000002cf24dba5fb0a30e26e83b2ac5b9e29e"
                + "1b161e5c1fa7425e73043362938b982468656c6c6f")

        let entry = ManifestEntry(
            key: "a",
            entry: IndexEntry(
                digest: digest, size: 5, created: 1_700_000_000_000, lastAccess: 1_700_000_060_000, expires: nil,
                metadata: []),
            location: .packed(PackLocation(pack: 1, offset: 24)))
        let manifest = ManifestWriter.encode(
            generation: 2, entries: [entry], packs: ManifestPackTable(nextPack: 2, packs: [.init(number: 1, end: 65)]))
        #expect(
            hex(manifest)
                == "424c4f424d4e46540300000002000000000000002aac567b3500000005659e20dbf14099e60101612cf24dba5fb0"
                + "a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240580d095ffbc31e0a499ffbc3100000101182600"
                + "00000a0ff09b7ae40f080e012cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240501"
                + "0101186c0000000b7e52814ec04e41d6010000000000000001000000000000000500000000000000000000000000"
                + "00004100000000000000020000000100000001000000010000000100000041000000000000002900000000000000"
                + "8cec01864cdc63af18000000000000000ea3b05fba4df22c5a000000000000008d00000000000000424c4f424d45"
                + "4e4461d025d8")

        // A chunked put: 100 bytes of `a` then 100 of `b`, cut into those two chunks (the example
        // in "Chunked values"; its needles at offsets 65 and 201 of pack 1).
        let halves = (Data(repeating: 0x61, count: 100), Data(repeating: 0x62, count: 100))
        let recipe = ChunkRecipe(
            parameters: ChunkingParameters(minimum: 64, average: 256, maximum: 1024)!,
            digest: SHA256Hasher.hash(halves.0 + halves.1),
            chunks: [
                .init(digest: SHA256Hasher.hash(halves.0), length: 100),
                .init(digest: SHA256Hasher.hash(halves.1), length: 100),
            ])
        let chunked = JournalRecord.put(
            .init(
                key: "v", digest: recipe.digest, size: 200, created: 1_700_000_000_000, expires: nil, metadata: [],
                location: .chunked,
                recipe: PlacedRecipe(
                    recipe,
                    locations: [
                        .packed(PackLocation(pack: 1, offset: 65)), .packed(PackLocation(pack: 1, offset: 201)),
                    ]
                )))
        #expect(
            hex(chunked.framed)
                == "b600000009e47dd481be7e39bc01765e8fce757305cffe37be059898fa572dc7e198bb8c8eb727bb3af18539"
                + "140e43c80180d095ffbc3100008101424c4f425243504501000000014080028008c8000000000000005e8fce7573"
                + "05cffe37be059898fa572dc7e198bb8c8eb727bb3af18539140e43022816597888e4a0d3a36b82b83316ab32680e"
                + "b8f00f8cd3b904d681246d285a0e64d6cbb053abf2933889a0ccbf6ac244623a63a2e3397e991dde09266bdaa932"
                + "d164d8f646c60101410101c901")

        var formatOne = JournalHeader(generation: 1)
        formatOne.version = 1
        let loose = JournalRecord.put(
            .init(key: "a", digest: digest, size: 5, created: 1_700_000_000_000, expires: nil, metadata: []))
        #expect(
            hex(formatOne.encoded + loose.framed)
                == "424c4f424a524e4c010000000100000000000000a8bf53922b000000019e6efe34de7c3cb001612cf24dba5f"
                + "b0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b98240580d095ffbc310000")
    }

    @Test func everyRecordTypeRoundTrips() {
        let records = sampleRecords(16)
        let (decoded, result) = scan(framedJournalBody(records))
        #expect(decoded == records)
        #expect(result.ending == .clean)
        #expect(result.recordCount == 16)
    }

    @Test func headerRoundTripsAndRejectsDamage() throws {
        let bytes = JournalHeader(generation: 7).encoded
        #expect(bytes.count == JournalFormat.fileHeaderSize)
        let header = try bytes.withUnsafeBytes { try JournalHeader(parsing: $0) }
        #expect(header.generation == 7)
        for offset in 0..<bytes.count {
            var damaged = bytes
            damaged[offset] ^= 0x10
            #expect(throws: JournalHeader.Problem.self) {
                try damaged.withUnsafeBytes { try JournalHeader(parsing: $0) }
            }
        }
        #expect(throws: JournalHeader.Problem.short) {
            try Array(bytes.prefix(23)).withUnsafeBytes { try JournalHeader(parsing: $0) }
        }
    }

    @Test func truncatedTrailingRecordIsIgnored() {
        let records = sampleRecords(8)
        let body = framedJournalBody(records)
        var boundaries = [0]
        for record in records { boundaries.append(boundaries.last! + record.framed.count) }
        for cut in 0...body.count {
            let (decoded, result) = scan(Array(body.prefix(cut)))
            let whole = boundaries.lastIndex { $0 <= cut }!
            #expect(decoded == Array(records.prefix(whole)))
            #expect(result.validEnd == boundaries[whole])
            #expect(
                result.ending == (cut == boundaries[whole] ? .clean : .tornTail(byteCount: cut - boundaries[whole])))
        }
    }

    @Test func checksumMismatchStopsReplayAtTheDamagedRecord() {
        let records = sampleRecords(6)
        var body = framedJournalBody(records)
        let second = records[0].framed.count
        body[second + JournalFormat.recordHeaderSize + 2] ^= 0x01
        let (decoded, result) = scan(body)
        #expect(decoded == [records[0]])
        #expect(result.validEnd == second)
        guard case .corrupt(let dropped, let reason) = result.ending else {
            Issue.record("expected corruption, got \(result.ending)")
            return
        }
        #expect(dropped == body.count - second)
        #expect(reason == "checksum mismatch")
    }

    @Test func badLengthIsCorruptionNotATornTail() {
        let length = UInt32(JournalFormat.maxPayloadSize + 1)
        let bytes = JournalRecord.header(length: length, type: 1, payloadCRC: 0) + [UInt8](repeating: 7, count: 32)
        let (decoded, result) = scan(bytes)
        #expect(decoded.isEmpty)
        #expect(result.ending == .corrupt(byteCount: bytes.count, reason: "record length \(length) exceeds the limit"))
    }

    /// A bit flipped in a length field in the middle of the journal, making the record seem to
    /// run past the end of the file: the header checksum tells it from a crash mid-append.
    @Test func damagedLengthFieldIsCorruptionNotATornTail() {
        let records = sampleRecords(6)
        var body = framedJournalBody(records)
        let third = records[0].framed.count + records[1].framed.count
        body[third + 2] ^= 0x40  // length += 4 MiB: past the end of the bytes
        let (decoded, result) = scan(body)
        #expect(decoded == Array(records.prefix(2)))
        #expect(result.ending == .corrupt(byteCount: body.count - third, reason: "header checksum mismatch"))
    }

    @Test func payloadCutOffAfterAValidHeaderIsATornTail() {
        let records = sampleRecords(3)
        let body = framedJournalBody(records)
        let cut = body.count - 3
        let (decoded, result) = scan(Array(body.prefix(cut)))
        #expect(decoded == Array(records.prefix(2)))
        #expect(result.ending == .tornTail(byteCount: records[2].framed.count - 3))
    }

    /// Payloads whose length or count varints claim 4 GiB (2^32) or more, each in a frame with
    /// valid checksums: each is corruption, named after the field, and found by comparing the
    /// claim with the limit before anything is allocated.
    @Test(arguments: [
        (JournalFormat.RecordType.put, hugeVarint(1 << 32) + [1, 2, 3], "key length 4294967296 exceeds 16777216"),
        (.put, hugeVarint(.max) + [1, 2, 3], "key length 18446744073709551615 exceeds 16777216"),
        (.put, putPrefix() + hugeVarint(1 << 32), "metadata length 4294967296 exceeds 16777216"),
        (.access, hugeVarint(1 << 32), "access count 4294967296 exceeds 65536"),
        (.access, hugeVarint(1) + hugeVarint(1 << 32), "key length 4294967296 exceeds 16777216"),
        (.remove, hugeVarint(1 << 32) + [0], "key length 4294967296 exceeds 16777216"),
        (.evict, hugeVarint(1 << 32), "key length 4294967296 exceeds 16777216"),
    ])
    func recordClaimingAHugeKeyIsRejectedBeforeAllocation(
        type: JournalFormat.RecordType, payload: [UInt8], reason: String
    ) {
        var framed = ByteWriter()
        JournalRecord.frame(type: type.rawValue, payload: payload, into: &framed)
        let (decoded, result) = scan(framed.bytes)
        #expect(decoded.isEmpty)
        #expect(result.ending == .corrupt(byteCount: framed.bytes.count, reason: reason))
    }

    @Test func everyExpiryRoundTrips() {
        for expires: Int64? in [nil, -1, 0, 1, .min, .max, 1_800_000_000_000] {
            let record = JournalRecord.put(
                .init(
                    key: "k", digest: SHA256Hasher.hash(Data()), size: 0, created: -1, expires: expires,
                    metadata: []))
            #expect(scan(record.framed).0 == [record], "expires \(String(describing: expires))")
        }
    }

    @Test func varintsHaveOneEncoding() {
        for value: UInt64 in [0, 1, 127, 128, 300, 1 << 35, .max] {
            var writer = ByteWriter()
            writer.varint(value)
            let decoded = writer.bytes.withUnsafeBytes { buffer -> UInt64? in
                var reader = ByteReader(buffer)
                return try? reader.varint()
            }
            #expect(decoded == value)
        }
        for overlong: [UInt8] in [[0x80, 0x00], [0xff, 0x00], [0x81, 0x80, 0x00]] {
            let decoded = overlong.withUnsafeBytes { buffer -> UInt64? in
                var reader = ByteReader(buffer)
                return try? reader.varint()
            }
            #expect(decoded == nil, "\(overlong) must be rejected")
        }
    }

    @Test func zeroFilledTailIsATornTail() {
        let records = sampleRecords(5)
        let body = framedJournalBody(records)
        let (decoded, result) = scan(body + [UInt8](repeating: 0, count: 4096))
        #expect(decoded == records)
        #expect(result.ending == .tornTail(byteCount: 4096))
    }

    @Test func garbageTailIsCorruption() {
        let records = sampleRecords(5)
        var generator = SystemRandomNumberGenerator()
        let garbage = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let (decoded, result) = scan(framedJournalBody(records) + garbage)
        #expect(decoded == records)
        if case .clean = result.ending { Issue.record("garbage accepted as clean") }
    }

    /// Flips every bit of a 4 KiB journal body: the reader never traps, and never yields a
    /// record that differs from what was written (a flipped bit is caught by the CRC, or
    /// stops reading).
    @Test func everyBitFlipIsDetected() {
        var records: [JournalRecord] = []
        var body: [UInt8] = []
        for record in sampleRecords(200) {
            if body.count + record.framed.count > 4096 { break }
            records.append(record)
            body += record.framed
        }
        #expect(body.count > 3500)
        var damagedRuns = 0
        for offset in 0..<body.count {
            for bit in 0..<8 {
                var damaged = body
                damaged[offset] ^= UInt8(1 << bit)
                let (decoded, result) = scan(damaged)
                #expect(decoded.count <= records.count)
                #expect(
                    decoded == Array(records.prefix(decoded.count)),
                    "bit \(bit) of byte \(offset) produced a wrong record")
                if result.ending != .clean { damagedRuns += 1 }
            }
        }
        #expect(damagedRuns == body.count * 8)
    }
}
