/// What a reader made of an entry's metadata (the HTTP cache's decoded record), kept by a store
/// that holds entries in memory with the entry it was made from, so that the next read of that
/// same entry finds it made (``EntryOpener/entryOpening(for:readingUpTo:decoding:)``).
///
/// Immutable, and made from the metadata bytes alone: a store keeps it only while the entry
/// holds the same value and metadata it was made from.
package protocol DecodedMetadata: AnyObject, Sendable {
    /// About how many bytes it holds: a memory tier counts them against its bound with the entry.
    var cost: Int { get }
}
