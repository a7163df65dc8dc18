import Glibc

extension BlobStore {
    /// How a store behaves. Every field has a default that suits an app's cache.
    public struct Configuration: Sendable {
        /// When writes become durable. Default ``Durability/batched``: a process crash loses
        /// nothing, a power loss at most the last ``batchInterval`` of writes, and one sync covers
        /// many puts. See docs/design.md, "Durability".
        public var durability: Durability = .batched
        /// The longest a write waits for its group commit in ``Durability/batched`` mode.
        public var batchInterval: Duration = .milliseconds(50)
        /// Whether reads rehash the blob and treat a mismatch as a miss. Default `true`.
        public var verifyReads = true
        /// How long an operation waits for another process's exclusive lock before it throws
        /// ``BlobStoreError/Code/busy``.
        public var lockTimeout: Duration = .seconds(30)
        /// Access times buffered in memory before they are appended as one record.
        public var accessBatchSize = 1024
        /// Mode of the files the store creates (blobs are additionally made read-only), and the
        /// most it accepts on the files at the top of the store (the journal, CURRENT, …).
        public var fileMode: mode_t = 0o600
        /// Mode of the directories the store creates, and the most it accepts: opening refuses
        /// (``BlobStoreError/Code/unsafeLayout``) a store directory, or one of its directories, that
        /// the group or every user may write beyond this mode. A mode that grants the group write
        /// permission (`0o770`) declares a store shared with a group: a store directory owned by
        /// another user is then written too, instead of being opened read-only.
        public var directoryMode: mode_t = 0o700
        /// Whether opening creates the store (and missing parent directories) when there is
        /// none. With `false`, opening a path without a store throws
        /// ``BlobStoreError/Code/notFound``: right for tools that only read.
        public var createIfMissing = true
        /// Eviction limits. `nil` (the default) applies the limits recorded in the store (by an
        /// app or `blobstore config`), or none. Set limits are recorded in the store when it opens.
        public var limits: EvictionLimits? = nil
        /// Garbage collection never deletes an unreferenced blob or a temporary file younger than
        /// this: another process may be writing it. Default one hour.
        public var gracePeriod: Duration = .seconds(3600)
        /// Automatic compaction runs after a write once the journal is at least this large ...
        public var compactionMinimumJournalBytes: Int = 4 << 20
        /// ... and at least this fraction of the journal and manifest describes dead state
        /// (overwritten, removed or evicted entries, superseded access times). Default 0.5.
        public var compactionDeadFraction: Double = 0.5

        /// Values smaller than this many bytes are appended to pack files; larger ones get a file
        /// of their own under `blobs/`. Default 64 KiB, chosen by measurement (docs/benchmarks.md,
        /// "Pack threshold"); at most 1 MiB (larger settings are clamped); 0 packs nothing. Stores
        /// opened with different thresholds share packs and loose files alike.
        public var packThreshold: Int = 64 << 10
        /// A pack whose live needles take less than this fraction of it is rewritten by garbage
        /// collection (its live needles are copied to the newest pack and the file is deleted).
        /// Default 0.5.
        public var repackLiveFraction: Double = 0.5

        /// A pack takes no more needles once it would pass this size; writers then start the
        /// next. Default 64 MiB, the most a pack may hold; smaller settings (from 64 KiB) make
        /// more, smaller packs, each rewritten more cheaply by garbage collection.
        public var packSize: Int = Int(PackFormat.maximumPackSize)

        /// Values of at least this many bytes are stored as content-defined chunks, each
        /// distinct chunk once, in packs: values that share most of their bytes share most of
        /// their disk, and a read verifies the chunks on every core (docs/design.md, "Chunked
        /// values"). `nil` stores every value whole. Values no larger than four times
        /// ``chunkSize`` are always stored whole. Stores opened with different settings read
        /// each other's values.
        public var chunkThreshold: Int? = nil
        /// The size chunks average: a power of two from 4 KiB to 256 KiB (other settings are
        /// rounded down to one and clamped). Chunks are cut between a quarter and four times
        /// it. Default 32 KiB, chosen by measurement (docs/benchmarks.md, "Content-defined
        /// chunking"). Values cut with different sizes share few chunks.
        public var chunkSize: Int = 32 << 10

        /// The parameters of ``chunkSize``, clamped.
        var chunkingParameters: ChunkingParameters {
            let clamped = min(max(4 << 10, chunkSize), 256 << 10)
            return ChunkingParameters(average: 1 << (Int.bitWidth - 1 - clamped.leadingZeroBitCount))!
        }

        /// How a value of `size` bytes is cut, or `nil` when it is stored whole: below
        /// ``chunkThreshold``, or no longer than a chunk may be.
        func chunking(forValueSized size: Int) -> ChunkingParameters? {
            guard let threshold = chunkThreshold else { return nil }
            let parameters = chunkingParameters
            return size >= max(threshold, parameters.maximum + 1) ? parameters : nil
        }

        /// ``packSize`` clamped to 64 KiB ... ``PackFormat/maximumPackSize``.
        var effectivePackSize: UInt64 { min(max(64 << 10, UInt64(max(0, packSize))), PackFormat.maximumPackSize) }

        /// ``packThreshold`` clamped to what packs hold.
        var effectivePackThreshold: Int { min(max(0, packThreshold), PackFormat.maximumPackedValue) }

        /// The disk a value of `size` bytes put with this configuration takes, as the capacity
        /// counts it: its needle when it is packed, whole 4 KiB blocks when it is a file of its
        /// own, its chunks' needles (about one per ``chunkSize``) when it is chunked and shares
        /// none (docs/design.md, "Disk use"). For sizing a store's capacity to a workload.
        package func diskBytes(ofValueSized size: Int) -> UInt64 {
            if let parameters = chunking(forValueSized: size) {
                let chunks = UInt64(size / parameters.average + 1)
                return UInt64(size) + chunks * PackFormat.needleHeaderSize
            }
            let location: BlobLocation =
                size < effectivePackThreshold ? .packed(PackLocation(pack: 1, offset: 0)) : .loose
            return StoreIndex.allocatedBytes(size: UInt64(max(0, size)), location: location)
        }

        public init(
            durability: Durability = .batched, verifyReads: Bool = true,
            batchInterval: Duration = .milliseconds(50), lockTimeout: Duration = .seconds(30)
        ) {
            self.durability = durability
            self.verifyReads = verifyReads
            self.batchInterval = batchInterval
            self.lockTimeout = lockTimeout
        }
    }
}
