import BlobStore
import Foundation

/// What the remote keeps under `ac/<sha256 of the key>`: the digest and size of the key's value
/// and the entry's dates and metadata, as one JSON object (docs/remote.md, "The ac record"):
///
/// ```json
/// {"created":1767225600000,"digest":"<64 hex>","expires":1767229200000,"metadata":"<base64>","size":5,"version":1}
/// ```
///
/// Dates are milliseconds since 1970; `expires` is absent for never. A record of another version, or one that does not decode,
/// is a miss: an older BlobStore never misreads a newer record.
public struct RemoteRecord: Sendable, Equatable {
    /// The only version this BlobStore writes and reads.
    public static let version = 1
    /// The largest record accepted from a server: 16 MiB of metadata in base64, and the rest.
    public static let maximumEncodedSize = 24 << 20

    /// The SHA-256 of the value.
    public var digest: SHA256Digest
    /// The value's size in bytes.
    public var size: UInt64
    /// When the entry was written.
    public var created: Date
    /// When the entry stops being valid; `nil` for never.
    public var expires: Date?
    /// The entry's opaque metadata.
    public var metadata: Data

    /// - Parameters:
    ///   - digest: The SHA-256 of the value.
    ///   - size: The value's size in bytes.
    ///   - created: When the entry was written.
    ///   - expires: When the entry stops being valid.
    ///   - metadata: Opaque bytes kept with the entry.
    public init(digest: SHA256Digest, size: UInt64, created: Date, expires: Date? = nil, metadata: Data = Data()) {
        self.digest = digest
        self.size = size
        self.created = created
        self.expires = expires
        self.metadata = metadata
    }

    /// Whether the record has expired at `now`.
    public func isExpired(at now: Date = Date()) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// The entry this record describes under `key`, last accessed now.
    func info(for key: StoreKey) -> EntryInfo {
        EntryInfo(
            key: key, digest: digest, size: size, created: created, lastAccess: Date(), expires: expires,
            metadata: metadata)
    }

    /// The record as JSON.
    public func encoded() -> Data {
        let fields = Fields(
            version: Self.version, digest: digest.hex, size: size, created: Self.milliseconds(created),
            expires: expires.map(Self.milliseconds), metadata: metadata.base64EncodedString())
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        // Encoding plain strings and integers cannot fail.
        guard let encoded = try? encoder.encode(fields) else { preconditionFailure("RemoteRecord did not encode") }
        return encoded
    }

    /// Decodes a record a server returned.
    ///
    /// - Returns: The record, or `nil` when it is too large, not JSON, of another version, or has
    ///   a bad digest, size or metadata.
    public static func decode(_ data: Data) -> RemoteRecord? {
        guard data.count <= maximumEncodedSize,
            let fields = try? JSONDecoder().decode(Fields.self, from: data),
            fields.version == version,
            let digest = SHA256Digest(hex: fields.digest),
            let metadata = Data(base64Encoded: fields.metadata)
        else { return nil }
        return RemoteRecord(
            digest: digest, size: fields.size, created: date(fields.created), expires: fields.expires.map(date),
            metadata: metadata)
    }

    private struct Fields: Codable {
        var version: Int
        var digest: String
        var size: UInt64
        var created: Int64
        var expires: Int64?
        var metadata: String
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64(exactly: (date.timeIntervalSince1970 * 1000).rounded()) ?? 0
    }

    private static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}
