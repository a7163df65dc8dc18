import BlobStore
import Foundation

/// Runs an ``ObjectCoder`` and turns what it throws into the library's error codes, the same for
/// every coder.
enum ObjectCoding {
    /// `object` encoded by `coder`.
    ///
    /// - Throws: `BlobStoreError` with code `unencodable`, or the coder's own `BlobStoreError`.
    static func encode<T: Encodable>(_ object: T, with coder: any ObjectCoder) throws -> Data {
        do {
            return try coder.encode(object)
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(
                .unencodable,
                "A value of type \(T.self) cannot be encoded as \(coder.name) (\(error)). Check its Encodable "
                    + "conformance, or choose another ObjectCoder.", underlying: error)
        }
    }

    /// `data`, the value under `key`, decoded by `coder`.
    ///
    /// - Throws: `BlobStoreError` with code `undecodable`, naming `key`, or the coder's own
    ///   `BlobStoreError`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, key: StoreKey, with coder: any ObjectCoder)
        throws -> T
    {
        do {
            return try coder.decode(type, from: data)
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(
                .undecodable,
                "The value under key '\(key)' (\(data.count) bytes) is not \(coder.name) of type \(T.self) "
                    + "(\(error)). Another type or coder wrote it: read it as that type, or store it again.",
                underlying: error)
        }
    }
}
