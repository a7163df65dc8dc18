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
    func encoded() throws -> Data {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return try encoder.encode(self)
        } catch {
            throw BlobStoreError(.unencodable, "An HTTP cache record could not be encoded (\(error)).")
        }
    }

    /// The record in `metadata`, or `nil` when it is not one this version reads.
    static func decoded(_ metadata: Data) -> CacheRecord? {
        guard let record = try? JSONDecoder().decode(CacheRecord.self, from: metadata), record.version == 1 else {
            return nil
        }
        return record
    }
}
