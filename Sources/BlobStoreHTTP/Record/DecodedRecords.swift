import BlobStore
import Foundation

/// The records decoded lately, by their metadata bytes: a hit on a hot URL decodes its JSON once,
/// not at every request (decoding costs more than the rest of a memory hit). Bounded: when it
/// holds ``capacity`` records it starts again empty.
final class DecodedRecords: Sendable {
    /// The most records kept.
    let capacity: Int
    private let records = ThreadLock<[Data: CacheRecord]>([:])

    init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// The record in `metadata`, or `nil` when it is not one this version reads.
    func record(in metadata: Data) -> CacheRecord? {
        if let known = records.withLock({ $0[metadata] }) { return known }
        guard let record = CacheRecord.decoded(metadata) else { return nil }
        records.withLock { records in
            if records.count >= capacity { records.removeAll(keepingCapacity: true) }
            records[metadata] = record
        }
        return record
    }
}
