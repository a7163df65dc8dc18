import Glibc

/// Reads what ``ByteWriter`` writes from untrusted bytes. Every length is checked against the
/// bytes left and against a caller's limit before anything is allocated; nothing traps.
struct ByteReader {
    /// Why decoding stopped.
    struct Failure: Error, Equatable {
        let reason: String
    }

    private let buffer: UnsafeRawBufferPointer
    private(set) var position: Int

    init(_ buffer: UnsafeRawBufferPointer, position: Int = 0) {
        self.buffer = buffer
        self.position = position
    }

    var remaining: Int { buffer.count - position }
    var isAtEnd: Bool { position == buffer.count }

    mutating func u8() throws(Failure) -> UInt8 {
        guard remaining >= 1 else { throw Failure(reason: "unexpected end of record") }
        defer { position += 1 }
        return buffer[position]
    }

    mutating func u32() throws(Failure) -> UInt32 {
        guard remaining >= 4 else { throw Failure(reason: "unexpected end of record") }
        var value: UInt32 = 0
        for index in 0..<4 { value |= UInt32(buffer[position + index]) << UInt32(8 * index) }
        position += 4
        return value
    }

    mutating func u64() throws(Failure) -> UInt64 {
        guard remaining >= 8 else { throw Failure(reason: "unexpected end of record") }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(buffer[position + index]) << UInt64(8 * index) }
        position += 8
        return value
    }

    /// Unsigned LEB128 of at most ten bytes, in its one shortest form: a last byte of zero after
    /// a continuation (an overlong encoding) is rejected, so every value has exactly one
    /// encoding and decoding then re-encoding reproduces the bytes.
    mutating func varint() throws(Failure) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            if shift == 63 && byte > 1 { throw Failure(reason: "varint overflows 64 bits") }
            if byte == 0 && shift > 0 { throw Failure(reason: "overlong varint") }
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
            if shift > 63 { throw Failure(reason: "varint longer than ten bytes") }
        }
    }

    /// A signed time written by ``ByteWriter/time(_:)``.
    mutating func time() throws(Failure) -> Int64 { Int64(bitPattern: try varint()) }

    /// An optional time written by ``ByteWriter/optionalTime(_:)``; `what` names it in errors.
    mutating func optionalTime(what: String) throws(Failure) -> Int64? {
        switch try u8() {
        case 0: return nil
        case 1: return try time()
        case let flag: throw Failure(reason: "bad \(what) flag \(flag)")
        }
    }

    /// A varint that must fit in `0...limit`.
    mutating func count(limit: Int, what: String) throws(Failure) -> Int {
        let value = try varint()
        guard value <= UInt64(limit) else { throw Failure(reason: "\(what) \(value) exceeds \(limit)") }
        return Int(value)
    }

    /// `count` raw bytes.
    /// A 32-byte digest, read in place (no array is made).
    mutating func digest() throws(Failure) -> SHA256Digest {
        guard remaining >= SHA256Digest.byteCount else { throw Failure(reason: "unexpected end of record") }
        defer { position += SHA256Digest.byteCount }
        return SHA256Digest(raw: buffer.baseAddress! + position)
    }

    mutating func bytes(_ count: Int) throws(Failure) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw Failure(reason: "length \(count) runs past the record") }
        defer { position += count }
        return Array(UnsafeRawBufferPointer(rebasing: buffer[position..<position + count]))
    }

    /// Moves past `count` bytes.
    mutating func skip(_ count: Int) throws(Failure) {
        guard count >= 0, remaining >= count else { throw Failure(reason: "length \(count) runs past the record") }
        position += count
    }

    /// Moves back (or on) to `position`, which must be within the bytes.
    mutating func seek(to position: Int) {
        precondition(position >= 0 && position <= buffer.count)
        self.position = position
    }

    /// Reads a varint length of at most `limit` and the bytes after it, and tells whether they
    /// equal `expected`, without copying them.
    mutating func lengthPrefixedEquals(_ expected: [UInt8], limit: Int, what: String) throws(Failure) -> Bool {
        let count = try count(limit: limit, what: what)
        guard remaining >= count else { throw Failure(reason: "length \(count) runs past the record") }
        defer { position += count }
        guard count == expected.count else { return false }
        return expected.withUnsafeBytes { memcmp($0.baseAddress!, buffer.baseAddress! + position, count) == 0 }
    }

    /// A varint length of at most `limit`, then that many bytes.
    mutating func lengthPrefixed(limit: Int, what: String) throws(Failure) -> [UInt8] {
        try bytes(count(limit: limit, what: what))
    }
}
