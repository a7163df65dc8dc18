@_spi(BlobStorePackage) import BlobStore
import Foundation

/// The record decoded lately under each key, with the metadata bytes it was decoded from: a hit
/// on a hot URL decodes its JSON once, not at every request (decoding costs more than the rest of
/// a memory hit). Looked up by the entry's key, whose hash is short, and kept only while the
/// entry's metadata is byte for byte the same; a record stored anew replaces it.
///
/// Bounded by count, so that over more URLs than it holds a hit would decode again: the caching
/// proxy's reads (``HTTPCache/storedResponse(for:key:requestHeaders:records:openingUpTo:)``) of a
/// store with a memory tier also keep each record with the entry it was decoded from
/// (`EntryOpener.entryOpening(for:readingUpTo:decoding:)`), and then a hit on anything the tier
/// holds finds it there first. The library's other reads use this memo alone.
package final class DecodedRecords: Sendable {
    private let records: BoundedMemo<StoreKey, DecodedRecord>

    /// Keeps at most about `capacity` records (``BoundedMemo``).
    package init(capacity: Int = 4096) {
        records = BoundedMemo(capacity: capacity)
    }

    /// The record in `metadata`, the metadata of the entry under `key`, or `nil` when it is not
    /// one this version reads.
    func record(in metadata: Data, under key: StoreKey) -> CacheRecord? {
        decoded(metadata, under: key)?.record
    }

    /// ``record(in:under:)`` with the metadata it was decoded from: what a memory tier keeps with
    /// the entry.
    func decoded(_ metadata: Data, under key: StoreKey) -> DecodedRecord? {
        if let known = records.known(key), known.metadata.hasSameBytes(as: metadata) { return known }
        guard let record = CacheRecord.decoded(metadata) else { return nil }
        let decoded = DecodedRecord(metadata: metadata, record: record)
        records.remember(decoded, for: key)
        return decoded
    }

    /// `record` encoded, for storing under `key`, and kept as the record those bytes decode to: a
    /// response refreshed by a 304 is read next time without decoding what was just encoded.
    func encoded(_ record: CacheRecord, for key: StoreKey) throws -> Data {
        let metadata = try record.encoded()
        records.remember(DecodedRecord(metadata: metadata, record: record), for: key)
        return metadata
    }
}

/// A record decoded from an entry's metadata, with those bytes: kept by ``DecodedRecords`` and
/// with a memory tier's entry.
final class DecodedRecord: DecodedMetadata {
    /// The metadata bytes the record was decoded from.
    let metadata: Data
    let record: CacheRecord

    init(metadata: Data, record: CacheRecord) {
        self.metadata = metadata
        self.record = record
    }

    /// An estimate: the record's strings, and a response's field lines made when it was
    /// decoded, each hold about what its JSON holds.
    var cost: Int { 2 * metadata.count }
}
