import Foundation

/// An entry and its value, read together by ``BlobStorage/entry(for:)``: the value is the
/// one the information describes, even while another thread or process overwrites the key.
public struct StoredEntry: Sendable, Equatable {
    /// The tier a value was found in.
    public enum Tier: Sendable, Equatable {
        /// A memory tier (`MemoryTier`, of `BlobStoreCache`).
        case memory
        /// A disk store (``BlobStore``).
        case disk
        /// A shared remote cache (the tiered store of `BlobStoreRemote`).
        case remote
    }

    /// The entry's digest, size, times and metadata.
    public var info: EntryInfo
    /// The value, verified against ``EntryInfo/digest`` unless the store's reads do not verify.
    public var value: Data
    /// Where the value was found.
    public var tier: Tier

    /// An entry holding `value`, found in `tier`.
    public init(info: EntryInfo, value: Data, tier: Tier) {
        self.info = info
        self.value = value
        self.tier = tier
    }
}
