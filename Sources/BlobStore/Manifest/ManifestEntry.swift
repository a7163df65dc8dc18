/// One live entry as a manifest stores it: the key, everything the index keeps for it, and where
/// its blob is.
struct ManifestEntry: Equatable, Sendable {
    var key: StoreKey
    var entry: IndexEntry
    var location: BlobLocation = .loose
}
