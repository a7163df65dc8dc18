/// What a store's chunked values share (``BlobStore/Configuration/chunkThreshold``): how many there are,
/// the distinct chunks they are made of, and the bytes each takes. From ``BlobStore/chunkStats()-9n9mv``,
/// which reads every live recipe: unlike ``StoreStats``, its cost grows with the chunks stored.
public struct ChunkStats: Sendable, Equatable, Codable {
    /// Distinct values kept as chunks (a value under two keys counts once).
    public var chunkedValues: Int
    /// Their lengths added up, each distinct value once.
    public var chunkedBytes: UInt64
    /// Distinct chunks the chunked values are made of: a chunk that several values share, or that
    /// one value repeats, counts once.
    public var distinctChunks: Int
    /// The lengths of the distinct chunks added up: the chunked values' bytes on disk, each
    /// chunk once, without the needle headers (a chunk that is also a value stored whole is
    /// counted here and in that value's disk alike). ``chunkedBytes`` less this is what
    /// sharing chunks saves.
    public var distinctChunkBytes: UInt64

    public init(
        chunkedValues: Int = 0, chunkedBytes: UInt64 = 0, distinctChunks: Int = 0, distinctChunkBytes: UInt64 = 0
    ) {
        self.chunkedValues = chunkedValues
        self.chunkedBytes = chunkedBytes
        self.distinctChunks = distinctChunks
        self.distinctChunkBytes = distinctChunkBytes
    }

    /// The bytes of chunked values that sharing chunks kept off the disk: ``chunkedBytes`` less
    /// ``distinctChunkBytes``.
    public var savedByChunkSharing: UInt64 { chunkedBytes > distinctChunkBytes ? chunkedBytes - distinctChunkBytes : 0 }
}
