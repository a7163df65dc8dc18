import BlobStore
import Foundation

/// How typed objects become bytes in a `BlobStorage` and back
/// (`BlobStorage.put(object:for:metadata:expires:placement:coder:)`): JSON
/// (``JSONObjectCoder``) and property lists (``PropertyListObjectCoder``) are provided; adopt it
/// for any other format.
///
/// Equal objects should encode to equal bytes: they are then stored once. An error thrown here
/// reaches the caller as `BlobStoreError` with code `unencodable` or `undecodable`, carrying
/// the error as its `BlobStoreError.underlyingError`; a `BlobStoreError` thrown here is passed
/// on as it is.
public protocol ObjectCoder: Sendable {
    /// The format's name in messages ("JSON").
    var name: String { get }

    /// `value` as bytes.
    func encode<T: Encodable>(_ value: T) throws -> Data

    /// `data` decoded as a `T`.
    func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T
}
