/// Bytes that end with the masked CRC32C of the bytes before it, as a `u32le`: how the files
/// that are hints rather than records (`policy-<gen>`, a chunked value's recipe) are checked
/// whole before any of their fields is read.
enum SealedBytes {
    /// Decodes the bytes before the checksum with `decode`; `nil` when they are shorter than the
    /// checksum, it does not match, or `decode` fails.
    static func open<T>(_ bytes: [UInt8], _ decode: (inout ByteReader) throws(ByteReader.Failure) -> T) -> T? {
        guard bytes.count >= 4 else { return nil }
        return bytes.withUnsafeBytes { buffer -> T? in
            let body = UnsafeRawBufferPointer(rebasing: buffer[..<(buffer.count - 4)])
            var trailer = ByteReader(UnsafeRawBufferPointer(rebasing: buffer[(buffer.count - 4)...]))
            guard let stored = try? trailer.u32(), CRC32C.mask(CRC32C.checksum(body)) == stored else { return nil }
            var reader = ByteReader(body)
            return try? decode(&reader)
        }
    }

    /// Appends the checksum of what `writer` holds.
    static func seal(_ writer: inout ByteWriter) {
        let crc = writer.bytes.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
        writer.u32(crc)
    }

    /// `bytes` with their last four bytes replaced by the checksum of the rest (a test's or a fuzz
    /// harness's way past the checksum to the fields); `bytes` unchanged when shorter than four.
    static func resealed(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.count >= 4 else { return bytes }
        var writer = ByteWriter()
        writer.raw(Array(bytes.dropLast(4)))
        seal(&writer)
        return writer.bytes
    }
}
