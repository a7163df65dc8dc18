import BlobStore
import Foundation

/// The records decoded lately, by their metadata bytes: a hit on a hot URL decodes its JSON once,
/// not at every request (decoding costs more than the rest of a memory hit).
final class DecodedRecords: Sendable {
    private let records: BoundedMemo<WholeBytes, CacheRecord>

    /// Keeps at most `capacity` records.
    init(capacity: Int = 4096) {
        records = BoundedMemo(capacity: capacity)
    }

    /// The record in `metadata`, or `nil` when it is not one this version reads.
    func record(in metadata: Data) -> CacheRecord? {
        records.value(for: WholeBytes(metadata)) { CacheRecord.decoded($0.data) }
    }

    /// `record` encoded, for storing, and kept as the record those bytes decode to: a response
    /// refreshed by a 304 is read next time without decoding what was just encoded.
    func encoded(_ record: CacheRecord) -> Data {
        let metadata = record.encoded()
        records.remember(record, for: WholeBytes(metadata))
        return metadata
    }
}
