/// One live entry as a manifest stores it: the key and everything the index keeps for it.
struct ManifestEntry: Equatable, Sendable {
    var key: StoreKey
    var entry: IndexEntry
}
