import Synchronization

// Compiled only with BLOBSTORE_FAULT_INJECTION (debug builds: Package.swift); a release build
// of the library contains none of it (.ci/run checks with nm).
#if BLOBSTORE_FAULT_INJECTION
    /// Points inside multi-step operations where crash tests stop or kill a process (`@_spi(Testing)`:
    /// not part of the API). Without a handler installed, reaching a point costs one relaxed atomic
    /// load (a put reaches one per new blob).
    @_spi(Testing) public enum TestHooks {
        /// The points, in the order an operation reaches them.
        public enum Point: String, Sendable, CaseIterable {
            /// Compaction: `manifest-<gen+1>` is written and synced; CURRENT still names `<gen>`.
            case compactionManifestWritten
            /// Compaction: the empty `journal-<gen+1>` is written and synced.
            case compactionJournalCreated
            /// Compaction: CURRENT names `<gen+1>`; the old pair still exists.
            case compactionCurrentSwapped
            /// Compaction: the old manifest and journal are deleted; garbage blobs are not yet.
            case compactionOldGenerationRemoved
            /// A put has linked its blob into `blobs/` (or appended its needle to a pack) and not yet
            /// appended its record.
            case putBlobLinked
            /// A repack has copied the live needles of the packs it rewrites; no record says so yet.
            case repackNeedlesCopied
            /// A repack's `relocate` records are appended and synced; the old packs still exist.
            case repackJournaled
        }

        private static let handler = Mutex<(@Sendable (Point) -> Void)?>(nil)
        private static let isInstalled = Atomic<Bool>(false)

        /// Installs (or, with `nil`, removes) the function called at every point.
        public static func install(_ body: (@Sendable (Point) -> Void)?) {
            handler.withLock { $0 = body }
            isInstalled.store(body != nil, ordering: .sequentiallyConsistent)
        }

        static func reach(_ point: Point) {
            guard isInstalled.load(ordering: .relaxed) else { return }
            handler.withLock { $0 }?(point)
        }
    }
#endif
