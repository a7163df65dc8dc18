/// Where a blob's bytes are: a file of its own, `blobs/sha256/ab/<digest>`, a needle in a pack
/// file (docs/format.md, "Packs"), or the chunks of a recipe, each a blob of its own
/// (docs/format.md, "Chunked values").
enum BlobLocation: Equatable, Hashable, Sendable {
    case loose
    case packed(PackLocation)
    /// The value is its recipe's chunks; the index keeps the recipe (``StoreIndex/recipe(_:)``).
    case chunked

    /// The pack location, or `nil` for a loose or chunked blob.
    var packed: PackLocation? {
        if case .packed(let location) = self { return location }
        return nil
    }
}

/// A needle's place: the pack's number and the offset of the needle's header in it.
struct PackLocation: Equatable, Hashable, Sendable {
    var pack: UInt32
    var offset: UInt64
}
