/// The constants of the journal file format. The grammar, a worked example and the reasons are
/// in docs/format.md; change neither without the other.
///
/// ```
/// file   := header record*
/// header := magic[8] version:u32le generation:u64le masked_crc32c(magic..generation):u32le
/// record := length:u32le type:u8 payload_crc:u32le header_crc:u32le payload[length]
///   payload_crc := masked_crc32c(payload)
///   header_crc  := masked_crc32c(length type payload_crc)
/// ```
///
/// The header checksum is what lets the reader tell a crash from damage: a record whose valid
/// header promises more bytes than the file has was cut off by a crash; a header that fails its
/// checksum (a damaged length, say) is damage.
enum JournalFormat {
    /// `BLOBJRNL`: the first eight bytes of every journal.
    static let magic: [UInt8] = Array("BLOBJRNL".utf8)
    /// The format version this code writes and the newest it reads. Version 2 added packs:
    /// record types 7 and 8 here, a location per manifest entry and the manifest's pack table.
    /// Version 3 added chunked values: record type 9 and location tag 2 (with a recipe in a
    /// manifest's blob blocks).
    static let version: UInt32 = 3
    /// Bytes in the file header.
    static let fileHeaderSize = 24
    /// Bytes in a record header: length, type, payload CRC, header CRC.
    static let recordHeaderSize = 13
    /// Bytes of the record header covered by the header CRC (length, type, payload CRC).
    static let recordHeaderCheckedSize = 9
    /// The largest payload a reader accepts; any larger length is corruption, checked before
    /// anything is allocated.
    static let maxPayloadSize = 64 << 20
    /// The longest key, in bytes.
    static let maxKeySize = 16 << 20
    /// The most opaque metadata per entry, in bytes.
    static let maxMetadataSize = 16 << 20
    /// The most keys in one access record.
    static let maxAccessItems = 65_536

    /// Record types. Values never change meaning; new types need a new format version.
    enum RecordType: UInt8 {
        case put = 1
        case access = 2
        case remove = 3
        case evict = 4
        /// A put whose blob is a needle in a pack: a put's payload, then pack and offset.
        case packedPut = 7
        /// A needle copied by a repack.
        case relocate = 8
        /// A put whose value is chunked: a put's payload, then the recipe and each chunk's location.
        case chunkedPut = 9
    }

    /// The highest pack number a record may name: far beyond any store, and low enough that
    /// ``StoreIndex/nextPack`` never overflows.
    static let maxPackNumber: UInt32 = 1 << 31
}
