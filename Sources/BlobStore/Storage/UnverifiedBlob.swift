import Foundation
import Synchronization

/// A value stored whole in its own file, opened for a read whose verification the reader runs
/// where it chooses: on a thread that may wait for the disk, not on an event loop, which a
/// gigabyte's hash would hold for most of a second (``BlobStore/entryOpening(for:readingUpTo:)``).
///
/// The read's hit is counted already; the first ``verified()`` ends it. Dropped without it, the
/// handle closes and the hit stays counted in this process only (not in the counts every process
/// shares, `StoreStats.allProcesses`).
package final class UnverifiedBlob: Sendable {
    private let store: BlobStore
    private let entry: IndexEntry
    private let handle: FileHandle
    /// Whether this process verified the blob before the read.
    private let wasVerified: Bool
    /// What the first ``verified()`` found: the handle, `nil` for damage, or its failure.
    private let outcome = Mutex<Result<FileHandle?, any Error>?>(nil)

    init(store: BlobStore, entry: IndexEntry, descriptor: FileDescriptor, wasVerified: Bool) {
        self.store = store
        self.entry = entry
        self.handle = FileHandle(fileDescriptor: descriptor.rawValue, closeOnDealloc: true)
        self.wasVerified = wasVerified
    }

    /// The handle on the blob, positioned at its start, once the blob was verified through it
    /// (streamed through SHA-256, unless ``BlobStore/Configuration/verifyReads`` is off), as
    /// ``BlobStore/fileHandle(for:)-4ol5e`` verifies it; `nil` when it is damaged: the handle is
    /// closed and the blob repaired, as any read that finds damage repairs it. Verifies once:
    /// later calls return (or throw) what the first found.
    ///
    /// - Throws: ``BlobStoreError`` when the blob cannot be read, or the repair fails.
    package func verified() throws -> FileHandle? {
        try outcome.withLock { outcome in
            if let outcome { return try outcome.get() }
            let found = Result {
                try store.keepingHit { try store.checkedFile(entry, handle, wasVerified: wasVerified) }.value
            }
            outcome = found
            return try found.get()
        }
    }
}
