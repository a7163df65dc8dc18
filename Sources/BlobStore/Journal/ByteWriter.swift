/// Appends little-endian integers, LEB128 varints and byte strings to a growing buffer.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    /// Room for `count` more bytes. At least doubles what is needed when it grows: room
    /// reserved exactly, record after record into one writer, copied the whole buffer each time.
    mutating func reserve(_ count: Int) {
        let needed = bytes.count + count
        if needed > bytes.capacity { bytes.reserveCapacity(max(needed, 2 * bytes.capacity)) }
    }

    mutating func u8(_ value: UInt8) { bytes.append(value) }

    mutating func u32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func u64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    /// Unsigned LEB128: seven bits a byte, high bit set on all but the last.
    mutating func varint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A signed time as a varint of its bit pattern (milliseconds since the epoch).
    mutating func time(_ value: Int64) { varint(UInt64(bitPattern: value)) }

    /// A flag byte, 0 for `nil` or 1 followed by the time.
    mutating func optionalTime(_ value: Int64?) {
        if let value {
            u8(1)
            time(value)
        } else {
            u8(0)
        }
    }

    /// A varint length followed by the bytes.
    mutating func lengthPrefixed(_ data: [UInt8]) {
        varint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func raw(_ data: [UInt8]) { bytes.append(contentsOf: data) }

    /// The 32 bytes of `digest`, most significant first (``SHA256Digest/bytes`` without the
    /// array).
    mutating func digest(_ digest: SHA256Digest) {
        digest.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// `count` zero bytes, room for a value patched in later.
    mutating func zeros(_ count: Int) { bytes.append(contentsOf: repeatElement(0, count: count)) }

    /// Overwrites the byte at `offset` with `value`.
    mutating func patchU8(_ value: UInt8, at offset: Int) { bytes[offset] = value }

    /// Overwrites four bytes at `offset` with `value`, little-endian.
    mutating func patchU32(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(8 * index)) }
    }
}
