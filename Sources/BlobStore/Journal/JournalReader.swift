/// Reads framed records from journal bytes and tells a crash from corruption, as LevelDB's
/// `log::Reader` does.
///
/// - Fewer bytes than a record header, a record whose valid header promises more bytes than
///   remain, or a tail of zero bytes is a **torn tail**: the writer died mid-append (or is still
///   appending). Reading stops cleanly before it.
/// - A header or payload checksum mismatch, a length over the limit or a payload that does not
///   decode is **corruption**: reading stops at that record and the caller reports the bytes
///   dropped. The reader never skips ahead by trusting a length.
enum JournalReader {
    /// How the bytes ended.
    enum Ending: Equatable, Sendable {
        /// Every byte belonged to a whole, valid record.
        case clean
        /// The last `byteCount` bytes are an incomplete record or zero fill.
        case tornTail(byteCount: Int)
        /// The record at the stop offset is damaged; `byteCount` bytes from there are dropped.
        case corrupt(byteCount: Int, reason: String)
    }

    /// The result of a scan.
    struct Scan: Equatable, Sendable {
        /// Offset (relative to the scanned bytes) just past the last valid record.
        var validEnd: Int
        /// Whole valid records read.
        var recordCount: Int
        var ending: Ending
    }

    /// Reads records from `bytes` in order, calling `body` for each with its offset range.
    ///
    /// - Parameters:
    ///   - bytes: Record bytes (without the file header).
    ///   - body: Called for each valid record, in order.
    /// - Returns: Where reading stopped and why.
    static func scan(
        _ bytes: UnsafeRawBufferPointer, _ body: (JournalRecord, Range<Int>) -> Void
    ) -> Scan {
        scanFrames(bytes) { type, payload, range throws(ByteReader.Failure) in
            body(try JournalRecord.decode(type: type, payload: payload), range)
        }
    }

    /// Reads frames from `bytes` in order, checking lengths and checksums, and hands each
    /// payload to `body` with its type and offset range. A payload that `body` rejects (by
    /// throwing) is corruption, like a checksum mismatch. Manifests share this framing.
    static func scanFrames(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UInt8, UnsafeRawBufferPointer, Range<Int>) throws(ByteReader.Failure) -> Void
    ) -> Scan {
        var position = 0
        var count = 0
        while true {
            let remaining = bytes.count - position
            if remaining == 0 { return Scan(validEnd: position, recordCount: count, ending: .clean) }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[position...])
            if rest.allSatisfy({ $0 == 0 }) {
                return Scan(validEnd: position, recordCount: count, ending: .tornTail(byteCount: remaining))
            }
            if remaining < JournalFormat.recordHeaderSize {
                return Scan(validEnd: position, recordCount: count, ending: .tornTail(byteCount: remaining))
            }
            var header = ByteReader(rest)
            let length = Int(try! header.u32())
            let type = try! header.u8()
            let payloadCRC = try! header.u32()
            let headerCRC = try! header.u32()
            let checkedHeader = UnsafeRawBufferPointer(rebasing: rest[0..<JournalFormat.recordHeaderCheckedSize])
            guard CRC32C.unmask(headerCRC) == CRC32C.checksum(checkedHeader) else {
                return Scan(
                    validEnd: position, recordCount: count,
                    ending: .corrupt(byteCount: remaining, reason: "header checksum mismatch"))
            }
            guard length <= JournalFormat.maxPayloadSize else {
                return Scan(
                    validEnd: position, recordCount: count,
                    ending: .corrupt(byteCount: remaining, reason: "record length \(length) exceeds the limit"))
            }
            let total = JournalFormat.recordHeaderSize + length
            if total > remaining {
                return Scan(validEnd: position, recordCount: count, ending: .tornTail(byteCount: remaining))
            }
            let payload = UnsafeRawBufferPointer(rebasing: rest[JournalFormat.recordHeaderSize..<total])
            guard CRC32C.unmask(payloadCRC) == CRC32C.checksum(payload) else {
                return Scan(
                    validEnd: position, recordCount: count,
                    ending: .corrupt(byteCount: remaining, reason: "checksum mismatch"))
            }
            do {
                try body(type, payload, position..<position + total)
            } catch {
                return Scan(
                    validEnd: position, recordCount: count,
                    ending: .corrupt(byteCount: remaining, reason: error.reason))
            }
            position += total
            count += 1
        }
    }
}
