/// The constants of the manifest file format (docs/format.md, "Manifest"). A manifest is a
/// snapshot of every live entry, written by compaction and never changed afterwards. Format 2 is
/// a sorted table that a process maps and reads in place, as LevelDB reads an SSTable: opening
/// checks the header, the trailer and the index, and each block is checked when a lookup or a
/// scan reads it. It uses the journal's file header (with its own magic) and record framing.
///
/// ```
/// file       := header key_block* blob_block* index trailer
/// key_block  := frame(type 5, count:varint entry{count})     sorted by (fnv1a64(key), key)
/// entry      := key:bytes digest[32] size:varint created:varint last_access:varint
///               has_expiry:u8 [expires:varint] metadata:bytes location
/// location   := 0 | 1 pack:varint offset:varint              (loose, or a needle in a pack)
/// blob_block := frame(type 10, count:varint blob{count})      sorted by digest
/// blob       := digest[32] size:varint references:varint location
/// index      := frame(type 11, totals packs key_index blob_index)   (fixed-width fields)
/// trailer    := index_offset:u64le "BLOBMEND" masked_crc32c(index_offset..magic):u32le
/// ```
///
/// Format 1 manifests (``ManifestReader``) are framed entries records and an end record, read
/// whole into memory; the first write to such a store compacts it into format 2.
enum ManifestFormat {
    /// `BLOBMNFT`: the first eight bytes of every manifest.
    static let magic: [UInt8] = Array("BLOBMNFT".utf8)
    /// `BLOBMEND`: the trailer's magic, eight bytes before the end of a format-2 manifest.
    static let trailerMagic: [UInt8] = Array("BLOBMEND".utf8)
    /// Record types, numbered after the journal's so that neither file's reader accepts the
    /// other's records. Type 5 is a format-1 entries record and a format-2 key block (the same
    /// entry encoding, with a location in format 2).
    static let entriesType: UInt8 = 5
    /// The end record of a format-1 manifest.
    static let endType: UInt8 = 6
    static let blobsType: UInt8 = 10
    static let indexType: UInt8 = 11
    /// Bytes in the trailer.
    static let trailerSize = 20
    /// Bytes of the index payload before its tables: five u64 totals and four u32 counts.
    static let indexFixedSize = 56
    /// Bytes of one pack in the index: number u32, end u64, live u64.
    static let indexPackSize = 20
    /// Bytes of one block in the index: the first hash (or digest prefix) u64, the offset u64.
    static let indexBlockSize = 16
    /// A block is closed once its payload reaches this size (a larger entry gets a block of its
    /// own). Small blocks keep a lookup's check and scan short; the index grows by 16 bytes per
    /// block (docs/format.md, "Block size").
    static let targetBlockSize = 1024
    /// The most packs one index lists.
    static let maxPacks = 1 << 20
    /// A format-1 entries record is closed once its payload passes this size.
    static let targetPayloadSize = 1 << 20
    /// The most entries in one record or block.
    static let maxEntriesPerRecord = 65_536

    /// The 64-bit FNV-1a hash of a key's bytes, by which key blocks are sorted. It only orders
    /// the table: keys with equal hashes are told apart by their bytes.
    static func keyHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    static func keyHash(_ key: StoreKey) -> UInt64 {
        key.bytes.withUnsafeBytes { keyHash($0) }
    }

    /// The first eight bytes of a digest as a big-endian number: blob blocks are ordered by it.
    static func digestPrefix(_ digest: SHA256Digest) -> UInt64 {
        digest.w0
    }
}
