internal import CCRC32C

/// CRC-32C (Castagnoli) over the C target, which picks the SSE4.2 instruction when the CPU has
/// it and slicing-by-8 otherwise. docs/format.md gives the measurements.
enum CRC32C {
    /// The CRC-32C of `bytes`, extending `crc` (0 to start).
    static func checksum(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        blobstore_crc32c_extend(crc, bytes.baseAddress, bytes.count)
    }

    /// The portable path, for tests that compare it with the hardware path.
    static func portableChecksum(_ bytes: UnsafeRawBufferPointer, extending crc: UInt32 = 0) -> UInt32 {
        blobstore_crc32c_extend_portable(crc, bytes.baseAddress, bytes.count)
    }

    private static let maskDelta: UInt32 = 0xa282_ead8

    /// Masks a CRC before storing it, so a CRC of data that itself holds CRCs stays strong
    /// (LevelDB's `crc32c::Mask`).
    static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ maskDelta
    }

    /// Inverts ``mask(_:)``.
    static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- maskDelta
        return (rotated >> 17) | (rotated << 15)
    }
}
