@_spi(BlobStorePackage) import BlobStore
import Foundation

/// The record decoded lately under each key, with the metadata bytes it was decoded from: a hit
/// on a hot URL decodes its JSON once, not at every request (decoding costs more than the rest of
/// a memory hit). Looked up by the entry's key, whose hash is short, and kept only while the
/// entry's metadata is byte for byte the same; a record stored anew replaces it.
package final class DecodedRecords: Sendable {
    private struct Decoded {
        let metadata: Data
        let record: CacheRecord
    }
    private let records: BoundedMemo<StoreKey, Decoded>

    /// Keeps at most about `capacity` records (``BoundedMemo``).
    package init(capacity: Int = 4096) {
        records = BoundedMemo(capacity: capacity)
    }

    /// The record in `metadata`, the metadata of the entry under `key`, or `nil` when it is not
    /// one this version reads.
    func record(in metadata: Data, under key: StoreKey) -> CacheRecord? {
        if let known = records.known(key), known.metadata.hasSameBytes(as: metadata) { return known.record }
        guard let record = CacheRecord.decoded(metadata) else { return nil }
        records.remember(Decoded(metadata: metadata, record: record), for: key)
        return record
    }

    /// `record` encoded, for storing under `key`, and kept as the record those bytes decode to: a
    /// response refreshed by a 304 is read next time without decoding what was just encoded.
    func encoded(_ record: CacheRecord, for key: StoreKey) throws -> Data {
        let metadata = try record.encoded()
        records.remember(Decoded(metadata: metadata, record: record), for: key)
        return metadata
    }
}
