import Foundation

/// The constants of the pack file format. The grammar, a worked example and the reasons are in
/// docs/format.md ("Packs"); change neither without the other.
///
/// ```
/// pack   := header needle*
/// header := magic[8] version:u32le pack:u64le masked_crc32c(magic..pack):u32le
/// needle := size:u32le digest[32] bytes[size]
/// ```
///
/// A pack is only ever appended to, under the store's exclusive lock, and never truncated or
/// rewritten in place by the store: processes map packs and read needles straight from the
/// mapping, and a mapped file cut short under a reader raises `SIGBUS`. Dead needles are
/// reclaimed by copying the live ones into the newest pack and unlinking the old file.
/// Journal and manifest records say where each needle is; a needle's header repeats its size and
/// digest, so a record that points at the wrong bytes is caught even when reads do not rehash.
enum PackFormat {
    /// `BLOBPACK`: the first eight bytes of every pack.
    static let magic: [UInt8] = Array("BLOBPACK".utf8)
    /// The version this code writes and the newest it reads.
    static let version: UInt32 = 1
    /// Bytes in the file header (the journal's header layout, with the pack number as generation).
    static let headerSize: UInt64 = 24
    /// Bytes in a needle's header: size and digest.
    static let needleHeaderSize: UInt64 = 36
    /// A pack is closed to new needles once the next one would pass this size; every process maps
    /// this many bytes of each pack it reads, so it is also the most of a pack that is ever read.
    static let maximumPackSize: UInt64 = 64 << 20
    /// The largest value ever packed (``BlobStore/Configuration/packThreshold`` is clamped to it).
    static let maximumPackedValue = 1 << 20

    /// The bytes a needle for a value of `size` takes in a pack.
    static func needleSize(_ size: UInt64) -> UInt64 { needleHeaderSize &+ size }

    /// `packs/pack-<number>`'s number, or `nil` for any other name.
    static func packNumber(ofFileNamed name: String) -> UInt32? {
        guard name.hasPrefix("pack-") else { return nil }
        let digits = name.dropFirst(5)
        guard !digits.isEmpty, digits.count <= 10, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            digits.first != "0"
        else { return nil }
        return UInt32(digits)
    }

    /// The file header of pack `number`.
    static func header(_ number: UInt32) -> [UInt8] {
        var header = JournalHeader(generation: UInt64(number), magic: magic)
        header.version = version
        return header.encoded
    }

    /// The pack number in a pack's file header, or `nil` when `bytes` do not start with a valid
    /// one of a version this code reads.
    static func parseHeader(_ bytes: [UInt8]) -> UInt32? {
        guard
            let header = try? bytes.withUnsafeBytes({ try JournalHeader(parsing: $0, magic: magic) }),
            header.version <= version, header.generation >= 1, header.generation <= UInt64(JournalFormat.maxPackNumber)
        else { return nil }
        return UInt32(header.generation)
    }

    /// A needle's header: the value's size and digest.
    static func needleHeader(size: UInt32, digest: SHA256Digest) -> [UInt8] {
        var writer = ByteWriter()
        writer.u32(size)
        writer.digest(digest)
        return writer.bytes
    }

    /// The value of the needle at `offset` in `pack` (a pack's bytes from its start), which a
    /// record says holds `size` bytes hashing to `digest`: `missing` when the needle does not fit
    /// in `pack` (the file is shorter), `corrupt` when it sits inside the file header or its own
    /// header names another size or digest. The bytes are not rehashed. Any input is safe: this
    /// is what the PackReader fuzz harness drives.
    static func needle(in pack: UnsafeRawBufferPointer, at offset: UInt64, size: UInt64, digest: SHA256Digest)
        -> ContentStore.ReadResult
    {
        switch needleValue(in: pack, at: offset, size: size, digest: digest) {
        case .success(let range): .found(Data(bytes: pack.baseAddress! + range.lowerBound, count: range.count))
        case .failure(let failure): failure.result
        }
    }

    /// Why a needle cannot be read: one of ``ContentStore/ReadResult``'s misses.
    struct NeedleFailure: Error {
        /// `.missing` or `.corrupt`.
        let result: ContentStore.ReadResult
    }

    /// Where the value of the needle at `offset` lies in `pack`, checked as
    /// ``needle(in:at:size:digest:)`` checks it, without copying it.
    static func needleValue(in pack: UnsafeRawBufferPointer, at offset: UInt64, size: UInt64, digest: SHA256Digest)
        -> Result<Range<Int>, NeedleFailure>
    {
        guard offset >= headerSize else {
            return .failure(NeedleFailure(result: .corrupt(reason: "needle at \(offset) inside the pack header")))
        }
        let available = UInt64(pack.count)
        guard size <= available, offset <= available, offset + needleHeaderSize + size <= available else {
            return .failure(NeedleFailure(result: .missing))
        }
        let header = UnsafeRawBufferPointer(start: pack.baseAddress! + Int(offset), count: Int(needleHeaderSize))
        guard needleHeaderMatches(header, size: size, digest: digest) else {
            return .failure(NeedleFailure(result: .corrupt(reason: "the needle's header does not match its record")))
        }
        let start = Int(offset + needleHeaderSize)
        return .success(start..<start + Int(size))
    }

    /// Whether the 36 bytes at `header` are the header of a needle holding `size` bytes whose
    /// digest is `digest`.
    static func needleHeaderMatches(_ header: UnsafeRawBufferPointer, size: UInt64, digest: SHA256Digest) -> Bool {
        guard header.count >= Int(needleHeaderSize) else { return false }
        let stored = UInt64(header.loadUnaligned(fromByteOffset: 0, as: UInt32.self).littleEndian)
        guard stored == size else { return false }
        return SHA256Digest(raw: header.baseAddress! + 4) == digest
    }
}
