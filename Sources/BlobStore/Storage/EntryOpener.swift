import Foundation

/// A storage that can hand a large value back opened and not yet verified
/// (``BlobStore/entryOpening(for:readingUpTo:)``), so that a caller on an event loop has another
/// thread hash it: `BlobStore` and the memory tier's `CachedStore`.
package protocol EntryOpener: BlobStorage {
    /// ``BlobStorage/entry(for:readingUpTo:)``, except that a value stored whole in a file of its
    /// own and larger than `maxBytes` comes back opened, its verification still to do.
    func entryOpening(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryOpening?

    /// ``entryOpening(for:readingUpTo:)``, with what `decode` makes of the entry's metadata: a
    /// store that holds the entry in memory keeps that with it and hands it back at the next read
    /// of the same entry instead of asking `decode` again (a memory tier's `CachedStore`); any
    /// other asks `decode` at each read. `nil` from `decode` is not kept.
    func entryOpening(
        for key: StoreKey, readingUpTo maxBytes: Int, decoding decode: (Data) -> (any DecodedMetadata)?
    ) throws -> (opening: EntryOpening, decoded: (any DecodedMetadata)?)?
}

extension EntryOpener {
    /// ``entryOpening(for:readingUpTo:)``, the metadata decoded at each read: a store that keeps
    /// nothing in memory.
    package func entryOpening(
        for key: StoreKey, readingUpTo maxBytes: Int, decoding decode: (Data) -> (any DecodedMetadata)?
    ) throws -> (opening: EntryOpening, decoded: (any DecodedMetadata)?)? {
        try entryOpening(for: key, readingUpTo: maxBytes).map { ($0, decode($0.info.metadata)) }
    }

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
