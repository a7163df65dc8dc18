import Foundation

/// An entry and its value, read together by ``BlobStore/entry(for:)-7kvi0``: the value is the one the
/// information describes, even while another thread or process overwrites the key.
public struct StoredEntry: Sendable, Equatable {
    /// The entry's digest, size, times and metadata.
    public var info: EntryInfo
    /// The value, verified against ``EntryInfo/digest`` unless reads do not verify.
    public var value: Data
}
