// libFuzzer harness for the record encoding. Build and run with `Fuzz/run.sh JournalRecord 60`;
// Fuzz/README.md lists the properties.
//
// The input is a recipe, not journal bytes: `RecipeReader` turns it into a list of records, which
// are framed into a journal. Every record must decode to itself, and the journal must scan
// cleanly with all the JournalReader properties.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var recipe = RecipeReader(Array(UnsafeBufferPointer(start: data, count: size)))
    var records: [JournalRecord] = []
    while !recipe.isAtEnd && records.count < 64 { records.append(recipe.record()) }

    var writer = ByteWriter()
    for record in records { record.frame(into: &writer) }
    let journal = writer.bytes

    for record in records {
        let framed = record.framed
        let (decoded, scan) = scanAll(framed)
        check(
            scan == JournalReader.Scan(validEnd: framed.count, recordCount: 1, ending: .clean), framed,
            "the framing of \(record) scans as \(scan)")
        check(
            decoded.count == 1 && decoded[0].0 == record, framed,
            "decode(encode(x)) != x: x = \(record), decoded = \(decoded.map(\.0))")
    }
    let scanned = checkScanProperties(journal, what: "journal of \(records.count) records")
    check(scanned.map(\.0) == records, journal, "the journal of \(records) scans as \(scanned.map(\.0))")
    check(scanAll(journal).1.ending == .clean, journal, "the journal of \(records) does not end cleanly")
    return 0
}

/// Turns fuzz bytes into record values. Running out of bytes yields zeros, so every input is a
/// valid recipe.
struct RecipeReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    /// A width byte (0...8), then that many little-endian bytes: small values stay common.
    mutating func u64() -> UInt64 {
        let width = Int(byte() % 9)
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(byte()) << UInt64(8 * index) }
        return value
    }

    /// Like ``u64()``, sign-extended from its width, so `-1` is a single `0xff`.
    mutating func i64() -> Int64 {
        let width = Int(byte() % 9)
        var value: UInt64 = 0
        for index in 0..<width { value |= UInt64(byte()) << UInt64(8 * index) }
        if width > 0 && width < 8 && value >> UInt64(8 * width - 1) & 1 == 1 {
            value |= UInt64.max << UInt64(8 * width)
        }
        return Int64(bitPattern: value)
    }

    mutating func blob(maxCount: Int) -> [UInt8] {
        let count = Int(byte()) % (maxCount + 1)
        return (0..<count).map { _ in byte() }
    }

    mutating func key() -> StoreKey { StoreKey(bytes: blob(maxCount: 48)) }

    mutating func digest() -> SHA256Digest {
        let seed = byte()
        return SHA256Digest(bytes: (0..<32).map { UInt8(truncatingIfNeeded: Int(seed) &* 31 &+ $0) })!
    }

    /// A place a needle of `size` bytes can have (pack 1 to 2^31, after the header, inside 64 MiB).
    mutating func packLocation(size: UInt64) -> PackLocation {
        let pack = UInt32(truncatingIfNeeded: u64() % UInt64(JournalFormat.maxPackNumber)) + 1
        let room = PackFormat.maximumPackSize - PackFormat.needleSize(size) - PackFormat.headerSize
        return PackLocation(pack: pack, offset: PackFormat.headerSize + u64() % (room + 1))
    }

    mutating func record() -> JournalRecord {
        switch byte() % 6 {
        case 0, 4:
            let key = key()
            let digest = digest()
            var size = u64()
            let created = i64()
            let expires: Int64? = byte() & 1 == 0 ? nil : i64()
            let metadata = blob(maxCount: 64)
            // Type 4 of the recipe is a packed put (journal type 7): a size a pack can hold.
            var location = BlobLocation.loose
            if byte() % 2 == 1 {
                size %= UInt64(PackFormat.maximumPackedValue) + 1
                location = .packed(packLocation(size: size))
            }
            return .put(
                .init(
                    key: key, digest: digest, size: size, created: created, expires: expires, metadata: metadata,
                    location: location))
        case 5:
            let digest = digest()
            let size = u64() % (UInt64(PackFormat.maximumPackedValue) + 1)
            return .relocate(
                .init(digest: digest, size: size, from: packLocation(size: size), to: packLocation(size: size)))
        case 1:
            let count = Int(byte() % 6)
            return .access((0..<count).map { _ in JournalRecord.AccessItem(key: key(), time: i64()) })
        case 2:
            let key = key()
            return .remove(key: key, digest: byte() & 1 == 0 ? nil : digest())
        default:
            return .evict(key: key(), digest: digest())
        }
    }
}
