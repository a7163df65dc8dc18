/// One distinct blob as a format-2 manifest stores it: its digest, size, how many references it
/// has (entries, and the chunks of recipes that name it), where it is, and a chunked value's
/// recipe.
struct ManifestBlob: Equatable, Sendable {
    var digest: SHA256Digest
    var size: UInt64
    var references: Int
    var location: BlobLocation
    /// The recipe of a chunked value (``BlobLocation/chunked``), `nil` for any other blob.
    var recipe: ChunkRecipe? = nil
}
