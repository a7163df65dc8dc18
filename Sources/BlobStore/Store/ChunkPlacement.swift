/// Where the chunks of one chunked put went so far, in the order of its recipe
/// (``BlobStore/putChunked(_:_:digest:key:metadataSize:expecting:record:)``): a chunk the value
/// names twice is placed once, and in ``Durability/always`` mode the packs it appended to or
/// reused are synced before the record is written.
struct ChunkPlacement {
    /// Each chunk's location, in recipe order.
    private(set) var locations: [BlobLocation] = []
    /// Each distinct chunk's location.
    private var placed: [SHA256Digest: BlobLocation] = [:]
    /// The packs holding the chunks.
    private(set) var packs: Set<UInt32> = []
    /// Whether any chunk was appended (the others were found stored).
    private(set) var appended = false

    /// The location of the chunk `digest` if the value named it before.
    func location(of digest: SHA256Digest) -> BlobLocation? { placed[digest] }

    /// Notes the next chunk of the recipe, `digest`, at `location` (where this put `appended` it,
    /// or found it).
    mutating func add(_ digest: SHA256Digest, at location: BlobLocation, appended: Bool = false) {
        self.appended = self.appended || appended
        locations.append(location)
        placed[digest] = location
        if let pack = location.packed?.pack { packs.insert(pack) }
    }
}
