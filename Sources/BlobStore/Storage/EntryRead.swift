import Foundation

/// An entry read by ``BlobStorage/entry(for:readingUpTo:)``: its value in memory, or, when it
/// is larger than the read asked to hold, a handle to read it from, or its chunks to read a
/// range at a time.
public enum EntryRead: Sendable {
    /// The entry with its value, as ``BlobStorage/entry(for:)`` returns it.
    case value(StoredEntry)
    /// The entry's information and a read-only handle on its value, positioned at its start and
    /// verified as ``BlobStore/fileHandle(for:)-4ol5e`` verifies it; the caller closes it.
    case opened(EntryInfo, FileHandle)
    /// The entry's information and its value kept as chunks (``BlobStore/Configuration/chunkThreshold``),
    /// opened for reading a range at a time, each range verified as it is read.
    case chunked(EntryInfo, ChunkedValue)

    /// The entry's information.
    public var info: EntryInfo {
        switch self {
        case .value(let entry): entry.info
        case .opened(let info, _), .chunked(let info, _): info
        }
    }
}
