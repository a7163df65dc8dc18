/// Where a blob's bytes are: a file of its own, `blobs/sha256/ab/<digest>`, or a needle in a
/// pack file (docs/format.md, "Packs").
enum BlobLocation: Equatable, Hashable, Sendable {
    case loose
    case packed(PackLocation)

    /// The pack location, or `nil` for a loose blob.
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
