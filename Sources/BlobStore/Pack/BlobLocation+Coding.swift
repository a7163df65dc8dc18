// MARK: - Encoding (docs/format.md, "Records" and "Manifest")

extension BlobLocation {
    /// `0` for a loose blob, `1 pack:varint offset:varint` for a needle, `2` for a chunked value
    /// (whose recipe, where one is stored, follows the location: ``ManifestWriter``).
    func encode(into writer: inout ByteWriter) {
        switch self {
        case .loose:
            writer.u8(0)
        case .packed(let location):
            writer.u8(1)
            JournalRecord.encode(location, into: &writer)
        case .chunked:
            writer.u8(2)
        }
    }

    /// Reads a location of a blob of `size` bytes; a needle is checked as a packed put's
    /// (``JournalRecord/readPackLocation(_:size:)``), and tag 2 is taken only where a chunked
    /// value may be (`chunked`; a recipe's chunks are loose or packed).
    static func decode(_ reader: inout ByteReader, size: UInt64, chunked: Bool) throws(ByteReader.Failure)
        -> BlobLocation
    {
        switch try reader.u8() {
        case 0: return .loose
        case 1: return .packed(try JournalRecord.readPackLocation(&reader, size: size))
        case 2 where chunked: return .chunked
        case let tag: throw ByteReader.Failure(reason: "bad location tag \(tag)")
        }
    }
}
