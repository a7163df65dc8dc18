import Glibc

/// A key: any bytes, usually the UTF-8 of a URL.
///
/// Keys are never used as file names (blobs are named by digest), so `/`, `..`, NUL and very
/// long keys are all safe. The journal bounds a key at 16 MiB.
public struct StoreKey: Hashable, Sendable, Comparable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    /// The key's bytes.
    public let bytes: [UInt8]

    /// A key of arbitrary bytes.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The UTF-8 bytes of `string`.
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    public init(stringLiteral value: String) { self.init(value) }

    /// The key as text; invalid UTF-8 is shown with replacement characters.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    public var description: String { string }

    /// Byte-wise order (unsigned bytes, a prefix first), as `lexicographicallyPrecedes` gives,
    /// with one `memcmp`: listing and eviction sort up to millions of keys.
    public static func < (lhs: StoreKey, rhs: StoreKey) -> Bool {
        lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                let common = min(left.count, right.count)
                let order = common == 0 ? 0 : memcmp(left.baseAddress!, right.baseAddress!, common)
                return order != 0 ? order < 0 : left.count < right.count
            }
        }
    }

    /// Feeds the bytes to the hasher in one call (with the length, so that keys that are
    /// prefixes of each other differ), not byte by byte as `[UInt8]` would: the index hashes
    /// every key on open.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
