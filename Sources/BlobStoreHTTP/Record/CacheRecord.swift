import BlobStore
import BlobStoreCache
import Foundation

/// The metadata of an HTTP cache entry: a response (its body is the entry's value), or, under
/// a URL whose response has `Vary`, the names that select a variant stored under a secondary key.
struct CacheRecord: Codable, Equatable {
    /// The record's format; another number reads as a miss.
    var version = 1
    /// The stored response, for an entry that holds one.
    var response: StoredResponse?
    /// The `Vary` names, for the entry under a URL that has variants.
    var variants: [String]?

    /// The JSON stored as metadata.
    ///
    /// - Throws: `unencodable` when a time is not a finite number.
    func encoded() throws -> Data {
        try RecordJSON.encode(self)
    }

    /// The record in `metadata`, or `nil` when it is not one this version reads: read by
    /// ``RecordJSONReader`` when it is in the form ``RecordJSON`` writes, else by `JSONDecoder`.
    static func decoded(_ metadata: Data) -> CacheRecord? {
        guard
            let record = RecordJSONReader.record(in: metadata)
                ?? (try? JSONDecoder().decode(Self.self, from: metadata)),
            record.version == 1
        else { return nil }
        return record
    }
}
