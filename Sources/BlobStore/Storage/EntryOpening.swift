/// What ``BlobStore/entryOpening(for:readingUpTo:)`` found: an entry read as
/// ``BlobStore/entry(for:readingUpTo:)`` reads it, or one whose value, in a file of its own, is
/// opened and still to be verified.
package enum EntryOpening: Sendable {
    /// The entry as ``BlobStore/entry(for:readingUpTo:)`` returns it.
    case read(EntryRead)
    /// The entry's information and its value opened, to be verified with
    /// ``UnverifiedBlob/verified()`` before it is read.
    case unverified(EntryInfo, UnverifiedBlob)

    /// The entry's information.
    package var info: EntryInfo {
        switch self {
        case .read(let read): read.info
        case .unverified(let info, _): info
        }
    }
}
