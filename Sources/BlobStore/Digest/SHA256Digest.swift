/// A SHA-256 digest: the address of a blob.
///
/// Stored as four big-endian 64-bit words (32 bytes, no heap allocation). Written as 64
/// lowercase hexadecimal characters; parsing accepts exactly that and nothing else.
public struct SHA256Digest: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The digest length in bytes.
    public static let byteCount = 32

    let w0: UInt64
    let w1: UInt64
    let w2: UInt64
    let w3: UInt64

    /// Creates a digest from exactly 32 bytes; returns `nil` for any other length.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for (index, byte) in bytes.enumerated() {
            switch index / 8 {
            case 0: words.0 = words.0 << 8 | UInt64(byte)
            case 1: words.1 = words.1 << 8 | UInt64(byte)
            case 2: words.2 = words.2 << 8 | UInt64(byte)
            default: words.3 = words.3 << 8 | UInt64(byte)
            }
        }
        (w0, w1, w2, w3) = words
    }

    /// Reads the 32 bytes at `raw` (most significant first), without allocating: for digests
    /// read from mapped files.
    init(raw: UnsafeRawPointer) {
        w0 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
        w1 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        w2 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        w3 = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
    }

    /// Parses 64 lowercase or uppercase hexadecimal characters; returns `nil` for anything else.
    public init?(hex: some StringProtocol) {
        let utf8 = Array(hex.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 32)
        for index in 0..<32 {
            guard let high = Self.nibble(utf8[2 * index]), let low = Self.nibble(utf8[2 * index + 1])
            else { return nil }
            bytes[index] = high << 4 | low
        }
        self.init(bytes: bytes)
    }

    /// The 32 bytes of the digest, most significant first.
    public var bytes: [UInt8] {
        withUnsafeBytes { Array($0) }
    }

    /// Calls `body` with the 32 bytes of the digest, most significant first, without an array.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        // Room on the stack (a tuple of the words would make the run time look up the tuple's
        // type at every call).
        try withUnsafeTemporaryAllocation(byteCount: Self.byteCount, alignment: 8) { room in
            room.storeBytes(of: w0.bigEndian, toByteOffset: 0, as: UInt64.self)
            room.storeBytes(of: w1.bigEndian, toByteOffset: 8, as: UInt64.self)
            room.storeBytes(of: w2.bigEndian, toByteOffset: 16, as: UInt64.self)
            room.storeBytes(of: w3.bigEndian, toByteOffset: 24, as: UInt64.self)
            return try body(UnsafeRawBufferPointer(room))
        }
    }

    /// The 64 lowercase hexadecimal characters of the digest.
    public var hex: String {
        String(unsafeUninitializedCapacity: 64) { utf8 in
            func put(_ word: UInt64, at start: Int) {
                for nibble in 0..<16 {
                    let digit = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * nibble)) & 0xf
                    utf8[start + nibble] = digit < 10 ? digit + UInt8(ascii: "0") : digit - 10 + UInt8(ascii: "a")
                }
            }
            put(w0, at: 0)
            put(w1, at: 16)
            put(w2, at: 32)
            put(w3, at: 48)
            return 64
        }
    }

    public var description: String { hex }

    public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        (lhs.w0, lhs.w1, lhs.w2, lhs.w3) < (rhs.w0, rhs.w1, rhs.w2, rhs.w3)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(w0)
    }

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): character - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension SHA256Digest: Codable {
    /// Encodes as the 64 lowercase hexadecimal characters.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(hex)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let digest = SHA256Digest(hex: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(text)\" is not 64 hexadecimal characters")
        }
        self = digest
    }
}

extension SHA256Digest {
    /// The first byte, which names the blob's shard directory (`blobs/sha256/ab`).
    var shard: UInt8 { UInt8(truncatingIfNeeded: w0 >> 56) }

    /// Whether `text` is made of lowercase hexadecimal digits only (how blob files are named).
    static func isLowercaseHex(_ text: String) -> Bool {
        text.utf8.allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
        }
    }
}
