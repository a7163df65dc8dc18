import Glibc

/// A compaction between its steps (docs/design.md, "Compaction"): the snapshot of the index
/// taken under the state mutex (``StoreState/planCompaction(layout:)``), written out as the next
/// generation with the mutex let go (``write(layout:configuration:)``), then installed under the
/// mutex again (``StoreState/install(_:of:layout:configuration:)``).
///
/// The snapshot is a copy of the index value: its storage is shared until a reader notes an
/// access in the live index meanwhile, which copies what it changes.
struct CompactionPlan {
    /// The generation being replaced.
    let generation: UInt64
    /// The entries and packs the manifest is written from.
    let index: StoreIndex
    let oldManifestBytes: UInt64
    let oldJournalBytes: UInt64
    /// When the compaction started (monotonic nanoseconds).
    let started: UInt64

    /// The next generation, written and named by CURRENT, not yet this handle's.
    struct Written {
        let generation: UInt64
        /// The new journal, open for appending.
        let journal: FileDescriptor
        let manifestBytes: Int
        /// The entries and recipes written, for rebuilding the index should the manifest not map.
        let contents: ManifestContents
    }

    /// A failed write: nothing of the new generation is left but what GC deletes, and the old
    /// one is in force, unless `poisons` (CURRENT was replaced and then a sync failed: the new
    /// generation is in force, unsynced).
    struct Failure: Error {
        let error: any Error
        let poisons: Bool
    }

    /// Writes and syncs `manifest-<gen+1>` and an empty `journal-<gen+1>`, then replaces CURRENT.
    /// Touches nothing of the handle's state: runs with the state mutex let go, while the caller
    /// holds ``BlobStore/writers`` and the exclusive lock.
    ///
    /// - Throws: ``Failure``; the caller settles it under the mutex
    ///   (``StoreState/settle(_:)``).
    func write(layout: StoreLayout, configuration: BlobStore.Configuration) throws(Failure) -> Written {
        let next = generation + 1
        let contents = index.manifestContents()
        let manifest = ManifestWriter.encode(
            generation: next, entries: contents.entries, recipes: contents.recipes, packs: index.packTable)
        let manifestPath = layout.manifest(generation: next)
        let journalPath = layout.journal(generation: next)
        let fresh: FileDescriptor
        do {
            try Self.writeSynced(manifestPath, manifest, mode: configuration.fileMode)
            #if BLOBSTORE_FAULT_INJECTION
                TestHooks.reach(.compactionManifestWritten)
            #endif
            fresh = try Syscalls.open(journalPath, O_RDWR | O_APPEND | O_CREAT | O_TRUNC, mode: configuration.fileMode)
        } catch {
            _ = try? Syscalls.unlink(manifestPath)
            throw Failure(error: error, poisons: false)
        }
        do {
            try JournalHeader(generation: next).encoded.withUnsafeBytes { try Syscalls.writeFully(fresh, $0) }
            try Syscalls.fsync(fresh)
            #if BLOBSTORE_FAULT_INJECTION
                TestHooks.reach(.compactionJournalCreated)
            #endif
            try Syscalls.fsyncDirectory(layout.root)
        } catch {
            Syscalls.close(fresh)
            _ = try? Syscalls.unlink(manifestPath)
            _ = try? Syscalls.unlink(journalPath)
            throw Failure(error: error, poisons: false)
        }
        // A hint, not synced: a snapshot that cannot be written, or is cut short by a power loss,
        // leaves the next process to rebuild the queue in order of creation. Written before
        // CURRENT names the generation it describes; without a queue, one a compaction that died
        // before CURRENT left under this name goes.
        if let policy = index.policy {
            try? BlobStore.writeFileAtomically(
                layout.policy(generation: next), policy.snapshot(generation: next).encoded(), directory: layout.root,
                mode: configuration.fileMode, synced: false)
        } else {
            _ = try? Syscalls.unlink(layout.policy(generation: next))
        }
        do {
            try BlobStore.writeFileAtomically(
                layout.current, Array(CurrentFile(generation: next, hasManifest: true).content.utf8),
                directory: layout.root, mode: configuration.fileMode)
        } catch {
            Syscalls.close(fresh)
            if (try? CurrentFile.read(layout))?.generation == next {
                // Renamed, then a sync failed: the new generation is in force, unsynced.
                throw Failure(error: error, poisons: true)
            }
            _ = try? Syscalls.unlink(manifestPath)
            _ = try? Syscalls.unlink(journalPath)
            throw Failure(error: error, poisons: false)
        }
        return Written(generation: next, journal: fresh, manifestBytes: manifest.count, contents: contents)
    }

    /// Creates (or replaces) `path` with `bytes` and syncs it.
    private static func writeSynced(_ path: String, _ bytes: [UInt8], mode: mode_t) throws {
        let fd = try Syscalls.open(path, O_WRONLY | O_CREAT | O_TRUNC, mode: mode)
        defer { Syscalls.close(fd) }
        try bytes.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
        try Syscalls.fsync(fd)
    }
}
