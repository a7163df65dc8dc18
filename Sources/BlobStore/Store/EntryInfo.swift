import Foundation

/// What the store knows about one key.
public struct EntryInfo: Sendable, Equatable {
    /// The key the entry is stored under.
    public var key: StoreKey
    /// The address of the value's bytes.
    public var digest: SHA256Digest
    /// The value's length in bytes.
    public var size: UInt64
    /// When the value was put.
    public var created: Date
    /// The last read this process knows of (reads are recorded in batches).
    public var lastAccess: Date
    /// When the entry stops being returned, or `nil`.
    public var expires: Date?
    /// The opaque bytes given with the put.
    public var metadata: Data

    /// Information made by a ``BlobStorage`` other than the disk store: a memory tier's, a
    /// remote's, a test double's.
    public init(
        key: StoreKey, digest: SHA256Digest, size: UInt64, created: Date, lastAccess: Date, expires: Date?,
        metadata: Data
    ) {
        self.key = key
        self.digest = digest
        self.size = size
        self.created = created
        self.lastAccess = lastAccess
        self.expires = expires
        self.metadata = metadata
    }

    init(key: StoreKey, entry: IndexEntry) {
        self.key = key
        self.digest = entry.digest
        self.size = entry.size
        self.created = Date(milliseconds: entry.created)
        self.lastAccess = Date(milliseconds: entry.lastAccess)
        self.expires = entry.expires.map(Date.init(milliseconds:))
        self.metadata = Data(entry.metadata)
    }
}

extension Date {
    init(milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    /// Milliseconds since the Unix epoch, clamped to what an `Int64` holds (an infinite or
    /// absurdly distant date is the farthest representable one, never a trap).
    var milliseconds: Int64 {
        let value = (timeIntervalSince1970 * 1000).rounded()
        if value.isNaN { return 0 }
        if value >= 9.2e18 { return .max }
        if value <= -9.2e18 { return .min }
        return Int64(value)
    }
}
