import BlobStoreHTTP

/// Bytes written at a pointer, up to an end, with no allocation, uniqueness check or length
/// kept per piece: an access log line is a dozen pieces, and appending each to an array was an
/// eighth of a logged hit's work. A piece that does not fit marks the cursor ``overflowed``, and
/// what was written is to be discarded by its owner.
struct ByteCursor: ByteSink {
    /// Where the next byte goes.
    private(set) var position: UnsafeMutableRawPointer
    /// The first byte past the room.
    private let end: UnsafeMutableRawPointer
    /// Whether a piece did not fit in the room: nothing more is written.
    private(set) var overflowed = false

    /// A cursor writing from `start` up to (not including) `end`.
    init(from start: UnsafeMutableRawPointer, to end: UnsafeMutableRawPointer) {
        position = start
        self.end = end
    }

    /// Room for `count` more bytes, else the cursor overflows.
    private mutating func reserve(_ count: Int) -> Bool {
        guard !overflowed, end - position >= count else {
            overflowed = true
            return false
        }
        return true
    }

    mutating func append(bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, reserve(bytes.count) else { return }
        position.copyMemory(from: base, byteCount: bytes.count)
        position += bytes.count
    }

    mutating func append(literal: StaticString) {
        append(bytes: UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func append(_ text: String) {
        HeadWriter.withBytes(of: text) { append(bytes: $0) }
    }

    mutating func append(byte: UInt8) {
        guard reserve(1) else { return }
        position.storeBytes(of: byte, as: UInt8.self)
        position += 1
    }

    mutating func append(decimal value: Int) {
        // One digit (a version, a tenth of a millisecond) as one byte.
        if value >= 0, value < 10 { return append(byte: UInt8(ascii: "0") + UInt8(value)) }
        var digits = 1
        var probe = value.magnitude
        while probe >= 10 {
            probe /= 10
            digits += 1
        }
        let sign = value < 0 ? 1 : 0
        guard reserve(sign + digits) else { return }
        if sign == 1 { position.storeBytes(of: UInt8(ascii: "-"), as: UInt8.self) }
        // The digits from the last, each at its place.
        var rest = value.magnitude
        var at = position + sign + digits
        repeat {
            at -= 1
            at.storeBytes(of: UInt8(ascii: "0") + UInt8(rest % 10), as: UInt8.self)
            rest /= 10
        } while rest > 0
        position += sign + digits
    }
}
