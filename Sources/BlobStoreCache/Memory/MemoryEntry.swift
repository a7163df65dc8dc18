import BlobStore
import Foundation

/// A value held by a ``MemoryTier``: the bytes, their digest, the metadata and expiry given with
/// them, and whether the disk store holds the same entry.
public struct MemoryEntry: Sendable, Equatable {
    /// The value's bytes.
    public var value: Data
    /// The opaque bytes kept with the value.
    public var metadata: Data
    /// After this date the entry reads as missing, or `nil`.
    public var expires: Date?
    /// Whether the disk store holds this entry too, so a hit records an access there.
    public var isOnDisk: Bool
    /// The SHA-256 of ``value``. For an entry ``isOnDisk``, the digest of the disk entry it was
    /// read or written as: a ``CachedStore`` serves the memory copy only while the disk entry
    /// still has it (and the same metadata and expiry), so a value another process overwrote is
    /// never served.
    public var digest: SHA256Digest
    /// When the value was put (into the disk store, for an entry read from there).
    public var created: Date
    /// When a ``CachedStore`` last found the disk store holding this same entry (and recorded
    /// an access there); `nil` until then. Within its recheck interval a hit is served without
    /// asking the disk again (``CachedStore/init(disk:memory:recheckInterval:)``).
    public var checked: MonotonicInstant?
    /// What a reader made of ``metadata`` (the HTTP cache's decoded record), kept with the entry
    /// by ``MemoryTier/attach(_:to:madeFrom:)`` so that the next read does not make it again;
    /// `nil` until then. Not compared by `==`: it is made from the metadata alone.
    package var decoded: (any DecodedMetadata)?

    /// An entry.
    ///
    /// - Parameters:
    ///   - value: The value's bytes.
    ///   - metadata: The opaque bytes kept with the value.
    ///   - expires: After this date the entry reads as missing.
    ///   - isOnDisk: Whether the disk store holds the same entry.
    ///   - digest: The SHA-256 of `value`, when the caller has it; computed otherwise.
    ///   - created: When the value was put. Default: now.
    public init(
        value: Data, metadata: Data = Data(), expires: Date? = nil, isOnDisk: Bool, digest: SHA256Digest? = nil,
        created: Date = Date()
    ) {
        self.value = value
        self.metadata = metadata
        self.expires = expires
        self.isOnDisk = isOnDisk
        self.digest = digest ?? SHA256Hasher.hash(value)
        self.created = created
    }

    /// The entry's information under `key`, last accessed now.
    public func info(for key: StoreKey) -> EntryInfo {
        EntryInfo(
            key: key, digest: digest, size: UInt64(value.count), created: created, lastAccess: Date(),
            expires: expires, metadata: metadata)
    }

    /// What the entry counts against ``MemoryTier/Limits/maxBytes`` under `key`: the bytes of the
    /// value, the metadata, the key, and the estimated size of what a reader decoded of the
    /// metadata and kept with the entry (the HTTP cache's record), once there is that.
    public func cost(for key: StoreKey) -> Int {
        value.count + metadata.count + key.bytes.count + (decoded?.cost ?? 0)
    }

    /// Whether `left` and `right` hold the same value, metadata, expiry, digest and times, and are
    /// on disk alike (what readers decoded of their metadata aside: it is made from the metadata).
    public static func == (left: MemoryEntry, right: MemoryEntry) -> Bool {
        left.value == right.value && left.metadata == right.metadata && left.expires == right.expires
            && left.isOnDisk == right.isOnDisk && left.digest == right.digest && left.created == right.created
            && left.checked == right.checked
    }

    /// Whether the entry has expired at `date`.
    public func isExpired(at date: Date) -> Bool {
        expires.map { $0 <= date } ?? false
    }
}
