import BlobStore
import Foundation

/// Property lists, binary or XML, as an ``ObjectCoder``. Equal objects may encode to different
/// bytes (a binary property list writes a dictionary in its iteration order), and then are stored
/// twice.
public struct PropertyListObjectCoder: ObjectCoder {
    /// The format written: `.binary` or `.xml`. `.openStep` can be read, not written: encoding
    /// fails with `unencodable`.
    public var format: PropertyListSerialization.PropertyListFormat

    /// A coder writing `format`.
    public init(format: PropertyListSerialization.PropertyListFormat = .binary) {
        self.format = format
    }

    /// "a property list".
    public var name: String { "a property list" }

    /// `value` as a property list in ``format``.
    ///
    /// - Throws: `BlobStoreError` with code `unencodable` for the `.openStep` format.
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        if format == .openStep {
            throw BlobStoreError(
                .unencodable,
                "A value of type \(T.self) cannot be encoded as an OpenStep property list: that format "
                    + "can be read, not written. Use the .binary or .xml format, or JSONObjectCoder.")
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format
        return try encoder.encode(value)
    }

    /// `data` decoded from a property list of any format as a `T`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try PropertyListDecoder().decode(type, from: data)
    }
}
