import Foundation

/// How a ``CachedStore`` turns typed objects into bytes and back.
public enum ObjectCoding: Sendable, Equatable {
    /// JSON with sorted keys: equal objects encode to equal bytes, so they are stored once, except
    /// where the encoding follows an unordered collection (a `Set`, a dictionary whose keys are
    /// not strings).
    case json
    /// A property list, `.binary` or `.xml`. Equal objects may encode to different bytes (a
    /// binary property list writes a dictionary in its iteration order), and then are stored
    /// twice. `.openStep` cannot be written: encoding fails with `unencodable`.
    case propertyList(PropertyListSerialization.PropertyListFormat)

    /// The coder's name in messages.
    var name: String {
        switch self {
        case .json: "JSON"
        case .propertyList: "property list"
        }
    }

    /// `value` encoded.
    ///
    /// - Throws: ``BlobStoreError`` with code `unencodable`, also for the `.openStep` format.
    func encode<T: Encodable>(_ value: T) throws -> Data {
        if case .propertyList(.openStep) = self {
            throw BlobStoreError(
                .unencodable,
                "A value of type \(T.self) cannot be encoded as an OpenStep property list: that format "
                    + "can be read, not written. Use .propertyList(.binary), .propertyList(.xml) or .json.")
        }
        do {
            switch self {
            case .json:
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys]
                return try encoder.encode(value)
            case .propertyList(let format):
                let encoder = PropertyListEncoder()
                encoder.outputFormat = format
                return try encoder.encode(value)
            }
        } catch {
            throw BlobStoreError(
                .unencodable,
                "A value of type \(T.self) cannot be encoded as a \(name) (\(error)). Check its Encodable "
                    + "conformance, or choose another ObjectCoding.", underlying: error)
        }
    }

    /// `data` decoded as a `T`.
    ///
    /// - Throws: ``BlobStoreError`` with code `undecodable`, naming `key`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data, key: StoreKey) throws -> T {
        do {
            switch self {
            case .json:
                return try JSONDecoder().decode(type, from: data)
            case .propertyList:
                return try PropertyListDecoder().decode(type, from: data)
            }
        } catch {
            throw BlobStoreError(
                .undecodable,
                "The value under key '\(key)' (\(data.count) bytes) is not a \(name) of type \(T.self) (\(error)). "
                    + "Another type or coder wrote it: read it as that type, or store it again.", underlying: error)
        }
    }
}
