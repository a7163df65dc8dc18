/// The 24-byte header at the start of every journal and manifest: magic, version, generation,
/// checksum. The magic tells the two apart (`BLOBJRNL`, `BLOBMNFT`).
struct JournalHeader: Equatable, Sendable {
    var magic: [UInt8]
    var version: UInt32
    var generation: UInt64

    /// Why a header could not be read.
    enum Problem: Error, Equatable {
        /// Fewer than 24 bytes: the creator died before the header was complete.
        case short
        /// The magic or the checksum is wrong: this is not a BlobStore journal, or it is damaged.
        case notAJournal
        /// The version is newer than this code reads.
        case newerVersion(UInt32)
    }

    init(generation: UInt64, magic: [UInt8] = JournalFormat.magic) {
        self.magic = magic
        self.version = JournalFormat.version
        self.generation = generation
    }

    var encoded: [UInt8] {
        var writer = ByteWriter()
        writer.raw(magic)
        writer.u32(version)
        writer.u64(generation)
        let crc = writer.bytes.withUnsafeBytes { CRC32C.checksum($0) }
        writer.u32(CRC32C.mask(crc))
        return writer.bytes
    }

    /// Parses the first 24 bytes of `bytes`, which must start with `magic`.
    init(parsing bytes: UnsafeRawBufferPointer, magic: [UInt8] = JournalFormat.magic) throws(Problem) {
        guard bytes.count >= JournalFormat.fileHeaderSize else { throw .short }
        guard bytes.prefix(8).elementsEqual(magic) else { throw .notAJournal }
        var reader = ByteReader(bytes, position: 8)
        do {
            let version = try reader.u32()
            let generation = try reader.u64()
            let stored = try reader.u32()
            let crc = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<20]))
            guard CRC32C.unmask(stored) == crc else { throw Problem.notAJournal }
            guard version <= JournalFormat.version else { throw Problem.newerVersion(version) }
            self.magic = magic
            self.version = version
            self.generation = generation
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .short
        }
    }
}
