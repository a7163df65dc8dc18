extension StoreDump {
    /// One journal record: where it is, how long it is, and the change it records
    /// (docs/format.md, "Records").
    public struct Record: Sendable, Equatable {
        /// The file offset of the record's header.
        public var offset: Int
        /// Bytes of the record, its 13-byte header included.
        public var byteCount: Int
        /// What the record changes.
        public var change: Change
    }

    /// The change a journal record makes to the index, one case per record type.
    public enum Change: Sendable, Equatable {
        /// Types 1 and 7: the key now maps to this entry (type 7 when its blob is a needle in a
        /// pack). ``Entry/lastAccess`` is `nil`: a put's entry was last accessed when created.
        case put(Entry)
        /// Type 2: keys read at these times, hints for eviction.
        case access([Access])
        /// Type 3: the key was removed; with a digest, only if it still mapped to it (a repair).
        case remove(key: StoreKey, ifDigest: SHA256Digest?)
        /// Type 4: the key was evicted while it mapped to the digest.
        case evict(key: StoreKey, digest: SHA256Digest)
        /// Type 8: a repack copied the needle of `digest`, `size` bytes, from one pack place to
        /// another.
        case relocate(digest: SHA256Digest, size: UInt64, from: PackPlace, to: PackPlace)

        init(_ record: JournalRecord) {
            switch record {
            case .put(let put): self = .put(Entry(put))
            case .access(let items): self = .access(items.map { Access(key: $0.key, time: $0.time) })
            case .remove(let key, let digest): self = .remove(key: key, ifDigest: digest)
            case .evict(let key, let digest): self = .evict(key: key, digest: digest)
            case .relocate(let move):
                self = .relocate(
                    digest: move.digest, size: move.size, from: PackPlace(move.from), to: PackPlace(move.to))
            }
        }
    }

    /// One read of one key, in an access record.
    public struct Access: Sendable, Equatable {
        public var key: StoreKey
        /// Milliseconds since the Unix epoch.
        public var time: Int64
    }
}
