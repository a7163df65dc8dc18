import BlobStore
import Foundation

/// JSON with sorted keys, the default ``ObjectCoder``: equal objects encode to equal bytes, so they
/// are stored once, except where the encoding follows an unordered collection (a `Set`, a
/// dictionary whose keys are not strings).
public struct JSONObjectCoder: ObjectCoder {
    /// A coder with `JSONEncoder`'s and `JSONDecoder`'s defaults, and sorted keys.
    public init() {}

    /// "JSON".
    public var name: String { "JSON" }

    /// `value` as JSON with sorted keys.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }

    /// `data` decoded from JSON as a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }
}
