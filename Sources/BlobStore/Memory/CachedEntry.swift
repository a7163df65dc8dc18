import Foundation

/// A value read through a ``CachedStore``, with what was stored with it and where it was found.
public struct CachedEntry: Sendable, Equatable {
    /// Where a ``CachedStore`` found a value.
    public enum Tier: Sendable, Equatable {
        /// In the ``MemoryTier``.
        case memory
        /// In the disk store.
        case disk
    }

    /// The value's bytes.
    public var value: Data
    /// The opaque bytes kept with the value.
    public var metadata: Data
    /// When the entry stops being returned, or `nil`.
    public var expires: Date?
    /// Where the value was found.
    public var tier: Tier

    /// An entry read from `tier`.
    public init(value: Data, metadata: Data, expires: Date?, tier: Tier) {
        self.value = value
        self.metadata = metadata
        self.expires = expires
        self.tier = tier
    }
}
