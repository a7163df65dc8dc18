/// The constants of the manifest file format (docs/format.md, "Manifest"). A manifest is a
/// snapshot of every live entry, written by compaction; it uses the journal's file header (with
/// its own magic) and the journal's record framing, with two record types of its own.
///
/// ```
/// file    := header entries* packs? end          (packs: format 2 only)
/// entries := frame(type 5, count:varint entry*)
/// entry   := key:bytes digest[32] size:varint created:varint last_access:varint
///            has_expiry:u8 [expires:varint] metadata:bytes
///            location                             (format 2 only)
/// location := 0 | 1 pack:varint offset:varint     (loose, or a needle in a pack)
/// packs   := frame(type 9, next_pack:varint count:varint (pack:varint end:varint)*)
/// end     := frame(type 6, total_entries:varint)
/// ```
///
/// A manifest is synced before CURRENT names it, so unlike a journal it has no torn tail: a
/// missing end record, or a count that disagrees with it, is damage.
enum ManifestFormat {
    /// `BLOBMNFT`: the first eight bytes of every manifest.
    static let magic: [UInt8] = Array("BLOBMNFT".utf8)
    /// Record types, numbered after the journal's so that neither file's reader accepts the
    /// other's records.
    static let entriesType: UInt8 = 5
    static let endType: UInt8 = 6
    /// The pack table (format 2).
    static let packsType: UInt8 = 9
    /// The most packs one table lists.
    static let maxPacks = 1 << 20
    /// An entries record is closed once its payload passes this size (a single larger entry gets
    /// a record of its own; keys and metadata are limited to 16 MiB each).
    static let targetPayloadSize = 1 << 20
    /// The most entries in one record.
    static let maxEntriesPerRecord = 65_536
}
