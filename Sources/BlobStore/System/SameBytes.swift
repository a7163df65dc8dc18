import Foundation

extension UnsafeRawBufferPointer {
    /// Whether `other` holds the same bytes: the counts, then one `memcmp`. Compared as a
    /// sequence, a byte at a time (even through raw buffers), a 700-byte HTTP record cost more
    /// than the rest of a memory hit's check.
    package func hasSameBytes(as other: UnsafeRawBufferPointer) -> Bool {
        count == other.count && (isEmpty || memcmp(baseAddress!, other.baseAddress!, count) == 0)
    }
}

extension Data {
    /// Whether `other` holds the same bytes (`UnsafeRawBufferPointer.hasSameBytes(as:)`):
    /// `==` on `Data` reaches its storage through run-time exclusivity checks, some 500
    /// instructions for an HTTP record on every memory hit.
    package func hasSameBytes(as other: Data) -> Bool {
        withUnsafeBytes { bytes in other.withUnsafeBytes { bytes.hasSameBytes(as: $0) } }
    }
}
