extension StoreDump {
    /// A key's entry as a journal put or a manifest records it.
    public struct Entry: Sendable, Equatable {
        public var key: StoreKey
        /// The SHA-256 of the value.
        public var digest: SHA256Digest
        /// The value's size in bytes.
        public var size: UInt64
        /// Milliseconds since the Unix epoch.
        public var created: Int64
        /// Milliseconds since the Unix epoch; `nil` in a journal put, whose entry was last
        /// accessed when it was created.
        public var lastAccess: Int64?
        /// Milliseconds since the Unix epoch; `nil` when the entry does not expire.
        public var expires: Int64?
        /// The entry's opaque metadata.
        public var metadata: [UInt8]
        /// Where the value's bytes are.
        public var location: Location

        init(_ put: JournalRecord.PutRecord) {
            key = put.key
            digest = put.digest
            size = put.size
            created = put.created
            lastAccess = nil
            expires = put.expires
            metadata = put.metadata
            location = Location(put.location)
        }

        init(_ item: ManifestEntry) {
            key = item.key
            digest = item.entry.digest
            size = item.entry.size
            created = item.entry.created
            lastAccess = item.entry.lastAccess
            expires = item.entry.expires
            metadata = item.entry.metadata
            location = Location(item.location)
        }
    }

    /// Where a value's bytes are: a file of its own, a needle in a pack (docs/format.md,
    /// "Packs"), or the chunks of a recipe ("Chunked values").
    public enum Location: Sendable, Equatable {
        /// `blobs/sha256/ab/<digest>`.
        case loose
        /// A needle in `packs/pack-<number>`.
        case packed(PackPlace)
        /// Chunks, each a blob of its own, as the value's recipe lists them.
        case chunked

        init(_ location: BlobLocation) {
            switch location {
            case .loose: self = .loose
            case .packed(let place): self = .packed(PackPlace(place))
            case .chunked: self = .chunked
            }
        }
    }

    /// A needle's place: the pack's number and the offset of the needle's header in it.
    public struct PackPlace: Sendable, Equatable {
        public var pack: UInt32
        public var offset: UInt64

        init(_ location: PackLocation) {
            pack = location.pack
            offset = location.offset
        }
    }
}
