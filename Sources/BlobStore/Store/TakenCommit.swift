/// The work of a group commit taken out of the state (``BlobStore/commitOutsideMutex()``, or the
/// timer's): the blobs written since the last commit, and duplicates of the journal's and the
/// pack's descriptors, synced through them because another process may compact meanwhile (this
/// process's next catch-up then closes the originals).
struct TakenCommit {
    /// The store's directory, for errors.
    let path: String
    let work: UnsyncedWrites
    let journal: FileDescriptor?
    let pack: FileDescriptor?

    /// Syncs the work in the group commit's order (``BlobStore/syncGroup(_:journal:pack:)``) and
    /// closes its descriptors, synced or not. Call once.
    ///
    /// - Throws: `io` when a descriptor could not be duplicated, or a sync's error.
    func sync() throws(BlobStoreError) {
        defer {
            for fd in work.blobs { Syscalls.close(fd) }
            if let journal { Syscalls.close(journal) }
            if let pack { Syscalls.close(pack) }
        }
        guard work.journal == (journal != nil), work.packWriter == (pack != nil) else {
            throw BlobStoreError(.io, "The group commit could not duplicate a descriptor to sync.", path: path)
        }
        do {
            try BlobStore.syncGroup(work, journal: journal, pack: pack)
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(.io, "The group commit failed: \(error)", path: path)
        }
    }
}
