// Shared by the fuzz harnesses of the BlobStore module (the target BlobStoreFuzzSupport, declared
// only for fuzz builds: Package.swift). Fuzz/README.md lists what each harness checks.

import Glibc

@testable import BlobStore

// MARK: - Properties of a scan

/// Checks everything ``JournalReader/scan(_:_:)`` promises about `bytes`, trapping with a
/// replayable journal file when a promise is broken.
///
/// - Parameters:
///   - bytes: Record bytes (no file header), exactly as they would be on disk.
///   - what: Names the bytes in a failure message, e.g. `"input"` or `"crc-repaired input"`.
/// - Returns: The records and their ranges, for callers that check more.
@discardableResult
func checkScanProperties(_ bytes: [UInt8], what: String) -> [(JournalRecord, Range<Int>)] {
    let (records, scan) = scanAll(bytes)
    var expectedStart = 0
    for (index, (record, range)) in records.enumerated() {
        // (b) Ranges are contiguous from 0 and non-empty.
        check(
            range.lowerBound == expectedStart, bytes,
            "\(what): record \(index) starts at \(range.lowerBound), expected \(expectedStart)")
        check(
            range.count >= JournalFormat.recordHeaderSize, bytes,
            "\(what): record \(index) range \(range) is shorter than a header")
        check(
            range.upperBound <= bytes.count, bytes,
            "\(what): record \(index) range \(range) runs past \(bytes.count) bytes")
        expectedStart = range.upperBound
        let stored = Array(bytes[range])
        // (a) The accepted bytes are exactly the record's canonical encoding.
        let framed = record.framed
        check(
            framed == stored, bytes,
            "\(what): record \(index) at \(range) re-encodes to \(hex(framed)), but the input has \(hex(stored)); record: \(record)"
        )
        // (c) The stored length and both checksums match what was read.
        let length = littleEndianU32(stored, at: 0)
        check(
            Int(length) == stored.count - JournalFormat.recordHeaderSize, bytes,
            "\(what): record \(index) length field \(length) does not match range \(range)")
        check(
            hasValidHeader(stored[...]), bytes,
            "\(what): record \(index) at \(range) was accepted with a bad header checksum")
        let payloadCRC = stored.withUnsafeBytes {
            CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[JournalFormat.recordHeaderSize...]))
        }
        check(
            CRC32C.unmask(littleEndianU32(stored, at: 5)) == payloadCRC, bytes,
            "\(what): record \(index) at \(range) was accepted with a bad checksum")
    }
    // (b) The counts and the end agree with the records.
    check(
        scan.recordCount == records.count, bytes,
        "\(what): recordCount \(scan.recordCount) but \(records.count) records were yielded")
    check(
        scan.validEnd == expectedStart, bytes,
        "\(what): validEnd \(scan.validEnd) but the last record ends at \(expectedStart)")
    // (d) The ending accounts for exactly the bytes after validEnd.
    let rest = bytes[scan.validEnd...]
    switch scan.ending {
    case .clean:
        check(
            scan.validEnd == bytes.count, bytes, "\(what): clean ending but validEnd \(scan.validEnd) != \(bytes.count)"
        )
    case .tornTail(let byteCount):
        check(
            byteCount > 0 && byteCount == rest.count, bytes,
            "\(what): tornTail(\(byteCount)) but \(rest.count) bytes follow validEnd")
        check(
            isTorn(rest), bytes,
            "\(what): tornTail at \(scan.validEnd), but the rest is neither zero fill nor a cut-off record")
    case .corrupt(let byteCount, _):
        check(
            byteCount > 0 && byteCount == rest.count, bytes,
            "\(what): corrupt(\(byteCount)) but \(rest.count) bytes follow validEnd")
        check(!rest.allSatisfy { $0 == 0 }, bytes, "\(what): zero fill at \(scan.validEnd) reported as corruption")
    }
    // (e) A prefix yields exactly the records that end inside it, and nothing else.
    for cut in Set([bytes.count / 2, pseudoRandomCut(bytes)]) where cut < bytes.count {
        let prefix = Array(bytes[..<cut])
        let (prefixRecords, prefixScan) = scanAll(prefix)
        let expected = records.filter { $0.1.upperBound <= cut }
        check(
            prefixRecords.count == expected.count, bytes,
            "\(what): the \(cut)-byte prefix yields \(prefixRecords.count) records, the whole input \(expected.count) inside it"
        )
        for (index, (got, want)) in zip(prefixRecords, expected).enumerated() {
            check(
                got.0 == want.0 && got.1 == want.1, bytes,
                "\(what): record \(index) of the \(cut)-byte prefix differs: \(got) vs \(want)")
        }
        check(
            prefixScan.validEnd == (expected.last?.1.upperBound ?? 0), bytes,
            "\(what): the \(cut)-byte prefix has validEnd \(prefixScan.validEnd)")
    }
    return records
}

/// Scans `bytes`, collecting every record.
func scanAll(_ bytes: [UInt8]) -> ([(JournalRecord, Range<Int>)], JournalReader.Scan) {
    var records: [(JournalRecord, Range<Int>)] = []
    let scan = bytes.withUnsafeBytes { buffer in
        JournalReader.scan(buffer) { record, range in records.append((record, range)) }
    }
    return (records, scan)
}

/// Whether `rest` is what a writer that died mid-append leaves: zero fill, a cut-off header, or
/// a valid header whose payload is cut off by the end of the bytes.
private func isTorn(_ rest: ArraySlice<UInt8>) -> Bool {
    if rest.allSatisfy({ $0 == 0 }) || rest.count < JournalFormat.recordHeaderSize { return true }
    let length = Int(littleEndianU32(Array(rest.prefix(4)), at: 0))
    return hasValidHeader(rest) && length <= JournalFormat.maxPayloadSize
        && JournalFormat.recordHeaderSize + length > rest.count
}

/// Whether the record header at the start of `frame` passes its checksum.
private func hasValidHeader(_ frame: ArraySlice<UInt8>) -> Bool {
    let header = Array(frame.prefix(JournalFormat.recordHeaderSize))
    guard header.count == JournalFormat.recordHeaderSize else { return false }
    let crc = header.withUnsafeBytes {
        CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<JournalFormat.recordHeaderCheckedSize]))
    }
    return CRC32C.unmask(littleEndianU32(header, at: JournalFormat.recordHeaderCheckedSize)) == crc
}

/// A cut point that depends on every byte, so the fuzzer explores prefixes other than the half.
private func pseudoRandomCut(_ bytes: [UInt8]) -> Int {
    guard !bytes.isEmpty else { return 0 }
    let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
    return Int(crc % UInt32(truncatingIfNeeded: bytes.count + 1))
}

// MARK: - CRC repair

/// `bytes` with both checksums of every record frame rewritten to be correct, walking frames
/// by their length fields until one does not fit. Random bytes almost never carry a valid
/// CRC-32C, so without this the fuzzer would never get past the checksums to the payload decoder.
///
/// - Parameter frames: Where the frames are: from its start, up to its end (all of `bytes` by
///   default; a format-2 manifest's frames run from the header to the trailer).
func repairingChecksums(_ bytes: [UInt8], in frames: Range<Int>? = nil) -> [UInt8] {
    let frames = frames ?? 0..<bytes.count
    var repaired = bytes
    var position = frames.lowerBound
    while frames.upperBound - position >= JournalFormat.recordHeaderSize {
        let length = Int(littleEndianU32(bytes, at: position))
        let total = JournalFormat.recordHeaderSize + length
        guard length <= JournalFormat.maxPayloadSize, total <= frames.upperBound - position else { break }
        let payloadCRC = bytes.withUnsafeBytes {
            CRC32C.checksum(
                UnsafeRawBufferPointer(rebasing: $0[(position + JournalFormat.recordHeaderSize)..<(position + total)]))
        }
        let header = JournalRecord.header(
            length: UInt32(length), type: bytes[position + 4], payloadCRC: CRC32C.mask(payloadCRC))
        repaired.replaceSubrange(position..<(position + JournalFormat.recordHeaderSize), with: header)
        position += total
    }
    return repaired
}

// MARK: - Failing

/// Traps with `message` unless `condition` holds, first saving `journal` (the bytes whose scan
/// broke the property) where Fuzz/run.sh collects findings.
///
/// - Parameter kind: What the bytes are (`"journal"`, `"manifest"`): the repro file's extension
///   and the name in the message.
@inline(__always)
func check(_ condition: Bool, _ journal: [UInt8], _ message: @autoclosure () -> String, kind: String = "journal") {
    if !condition { fail(message(), journal: journal, kind: kind) }
}

/// Prints `message` and the bytes, writes them to `$FUZZ_REPRO_DIR/repro-<crc>.<kind>` when
/// that is set, and traps.
func fail(_ message: String, journal: [UInt8], kind: String = "journal") -> Never {
    let crc = journal.withUnsafeBytes { CRC32C.checksum($0) }
    let name = "repro-\(String(crc, radix: 16)).\(kind)"
    var report = "PROPERTY VIOLATED: \(message)\n\(kind) bytes (\(journal.count)): \(hex(journal))\n"
    if let directory = getenv("FUZZ_REPRO_DIR").map({ String(cString: $0) }), !directory.isEmpty {
        let path = directory + "/" + name
        if let file = fopen(path, "wb") {
            _ = journal.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            report += "replayable \(kind) written to \(path)\n"
        }
    }
    _ = report.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    fatalError(message)
}

func hex(_ bytes: some Collection<UInt8>) -> String { lowercaseHex(bytes) }

private func littleEndianU32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    var value: UInt32 = 0
    for index in 0..<4 { value |= UInt32(bytes[offset + index]) << UInt32(8 * index) }
    return value
}
