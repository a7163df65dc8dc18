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
            return .put(
                JournalRecord.PutRecord(
                    key: key, digest: digest, size: UInt64(index * 100), created: 1_700_000_000_000 + Int64(index),
                    expires: index % 8 == 0 ? nil : 1_800_000_000_000, metadata: Array("meta\(index)".utf8)))
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
        var writer = ByteWriter()
        writer.u32(UInt32(JournalFormat.maxPayloadSize + 1))
        writer.u32(0)
        writer.u8(1)
        writer.raw([UInt8](repeating: 7, count: 32))
        let (decoded, result) = scan(writer.bytes)
        #expect(decoded.isEmpty)
        #expect(
            result.ending
                == .corrupt(
                    byteCount: writer.bytes.count,
                    reason: "record length \(JournalFormat.maxPayloadSize + 1) exceeds the limit"))
    }

    @Test func recordClaimingAHugeKeyIsRejectedBeforeAllocation() {
        // A put whose payload says its key is 4 GiB long, with a valid CRC.
        var payload = ByteWriter()
        payload.varint(4 << 30)
        payload.raw([1, 2, 3])
        var framed = ByteWriter()
        framed.u32(UInt32(payload.bytes.count))
        let crc = ([JournalFormat.RecordType.put.rawValue] + payload.bytes).withUnsafeBytes { CRC32C.checksum($0) }
        framed.u32(CRC32C.mask(crc))
        framed.u8(JournalFormat.RecordType.put.rawValue)
        framed.raw(payload.bytes)
        let (decoded, result) = scan(framed.bytes)
        #expect(decoded.isEmpty)
        guard case .corrupt(_, let reason) = result.ending else {
            Issue.record("expected corruption")
            return
        }
        #expect(reason.contains("key length"))
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
