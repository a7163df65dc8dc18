/// What a compaction writes as a manifest: every live entry with its blob's location, and the
/// recipe of every chunked value an entry refers to, with where each of its chunks is
/// (``StoreIndex/manifestContents()``).
struct ManifestContents: Sendable {
    var entries: [ManifestEntry] = []
    var recipes: [PlacedRecipe] = []
}
