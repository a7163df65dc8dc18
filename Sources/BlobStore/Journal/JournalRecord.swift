/// One change to the index, as the journal stores it.
enum JournalRecord: Equatable, Sendable {
    /// `key` now maps to a blob.
    case put(PutRecord)
    /// The keys were read at the given times (hints for eviction; never fsynced).
    case access([AccessItem])
    /// `key` was removed. With a digest, only if the key still maps to that digest (repairs).
    case remove(key: StoreKey, digest: SHA256Digest?)
    /// `key` was evicted while it mapped to `digest`; ignored if it maps to another by now.
    case evict(key: StoreKey, digest: SHA256Digest)
    /// A repack copied a needle to another pack; ignored if the blob is no longer at `from`.
    case relocate(RelocateRecord)

    /// A key's new mapping and everything the index keeps about it.
    struct PutRecord: Equatable, Sendable {
        var key: StoreKey
        var digest: SHA256Digest
        var size: UInt64
        /// Milliseconds since the Unix epoch.
        var created: Int64
        /// Milliseconds since the Unix epoch; `nil` when the entry does not expire.
        var expires: Int64?
        var metadata: [UInt8]
        /// Where the blob is: a loose file (record type 1), a needle (record type 7) or chunks
        /// (record type 9, with ``recipe``).
        var location: BlobLocation = .loose
        /// A chunked value's recipe and its chunks' locations; `nil` unless ``location`` is
        /// ``BlobLocation/chunked``.
        var recipe: PlacedRecipe? = nil
    }

    /// A needle of `size` bytes whose digest is `digest`, copied from `from` to `to`.
    struct RelocateRecord: Equatable, Sendable {
        var digest: SHA256Digest
        var size: UInt64
        var from: PackLocation
        var to: PackLocation
    }

    /// One read of one key.
    struct AccessItem: Equatable, Sendable {
        var key: StoreKey
        /// Milliseconds since the Unix epoch.
        var time: Int64
    }
}
