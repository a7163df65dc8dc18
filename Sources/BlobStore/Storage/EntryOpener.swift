/// A storage that can hand a large value back opened and not yet verified
/// (``BlobStore/entryOpening(for:readingUpTo:)``), so that a caller on an event loop has another
/// thread hash it: `BlobStore` and the memory tier's `CachedStore`.
package protocol EntryOpener: BlobStorage {
    /// ``BlobStorage/entry(for:readingUpTo:)``, except that a value stored whole in a file of its
    /// own and larger than `maxBytes` comes back opened, its verification still to do.
    func entryOpening(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryOpening?
}

extension EntryOpener {
    /// ``BlobStorage/entry(for:readingUpTo:)`` through ``entryOpening(for:readingUpTo:)``, a value
    /// opened unverified verified at once.
    package func entryVerifyingNow(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryRead? {
        switch try entryOpening(for: key, readingUpTo: maxBytes) {
        case nil: return nil
        case .read(let read): return read
        case .unverified(let info, let blob): return try blob.verified().map { .opened(info, $0) }
        }
    }
}
