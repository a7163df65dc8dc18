import Foundation
import Glibc

/// The one error type BlobStore throws.
///
/// Every error has a ``Code`` a program can switch on, a ``message`` a person can act on, the
/// path it concerns (when there is one), the `errno` of the failed system call (when there was
/// one) and the source location that raised it.
public struct BlobStoreError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. An extensible set: switch with a `default`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A key, blob or file does not exist.
        public static let notFound = Code("notFound")
        /// Stored bytes failed a checksum or a digest, or a file is not in the expected format.
        public static let corrupt = Code("corrupt")
        /// An input error or unexpected I/O failure.
        public static let io = Code("io")
        /// The file system is full (`ENOSPC`, `EDQUOT`).
        public static let noSpace = Code("noSpace")
        /// The store or a file in it cannot be written or read with the process's rights, or the
        /// store belongs to another user and is open for reading only.
        public static let permissionDenied = Code("permissionDenied")
        /// The directory exists, is not empty and is not a BlobStore store.
        public static let notAStore = Code("notAStore")
        /// The store was written by a newer BlobStore with a format this version cannot read.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// Another process holds the store's lock longer than the configured timeout, or the
        /// store is already open in this process.
        public static let busy = Code("busy")
        /// An argument is out of range or malformed.
        public static let invalidArgument = Code("invalidArgument")
        /// The store's layout contains a symbolic link or file type it will not follow, or a
        /// directory or file of the store that other users may write.
        public static let unsafeLayout = Code("unsafeLayout")
        /// An earlier `fsync` failed; nothing more is acknowledged as durable by this handle.
        public static let poisoned = Code("poisoned")
        /// A value is larger than a configured or format limit.
        public static let tooLarge = Code("tooLarge")
        /// The store was closed.
        public static let closed = Code("closed")
        /// A put's bytes do not hash to the digest the caller said they have; nothing was stored.
        public static let digestMismatch = Code("digestMismatch")
    }

    public var code: Code
    public var message: String
    public var path: String?
    public var errno: Int32?
    /// The system call that failed (``SystemCall/fsync``, ``SystemCall/write``, …), for errors
    /// that come from one.
    public var call: SystemCall?
    public var location: String
    /// The error this one wraps, when it comes from another library (a `Codable` coder's, a
    /// network transport's); `nil` otherwise.
    public var underlyingError: (any Error)?

    public init(
        _ code: Code, _ message: String, path: String? = nil, errno: Int32? = nil,
        underlying: (any Error)? = nil, file: StaticString = #fileID, line: UInt = #line
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.errno = errno
        self.underlyingError = underlying
        self.location = "\(file):\(line)"
    }

    public var description: String {
        var text = message
        if let errno {
            text += " (\(String(cString: strerror(errno))))"
        }
        return text
    }
}

extension BlobStoreError {
    /// Maps a failed system call to an error whose message says what to do.
    ///
    /// - Parameters:
    ///   - call: The system call.
    ///   - path: The file it acted on.
    ///   - errno: The `errno` it set.
    static func system(
        _ call: SystemCall, path: String, errno: Int32,
        file: StaticString = #fileID, line: UInt = #line
    ) -> BlobStoreError {
        var error = mapped(call, path: path, errno: errno, file: file, line: line)
        error.call = call
        return error
    }

    /// Whether this is a failed `fsync`/`fdatasync`: after one, nothing more may be acknowledged
    /// (docs/design.md, "The poison rule").
    var isSyncFailure: Bool { call?.isSync ?? false }

    private static func mapped(
        _ call: SystemCall, path: String, errno: Int32, file: StaticString, line: UInt
    ) -> BlobStoreError {
        switch errno {
        case ENOSPC, EDQUOT:
            return BlobStoreError(
                .noSpace,
                "\(call) failed on \(path): the file system is full. Free space or lower the store's "
                    + "capacity, then retry; nothing acknowledged was lost.",
                path: path, errno: errno, file: file, line: line)
        case EACCES, EPERM, EROFS:
            return BlobStoreError(
                .permissionDenied,
                "\(call) was refused on \(path). Check that the store directory is writable by this "
                    + "user, or open another store.",
                path: path, errno: errno, file: file, line: line)
        case ENOENT:
            return BlobStoreError(
                .notFound, "\(call): \(path) does not exist.", path: path, errno: errno, file: file,
                line: line)
        case ELOOP:
            return BlobStoreError(
                .unsafeLayout,
                "\(call): \(path) is a symbolic link; the store never follows links. Remove the link.",
                path: path, errno: errno, file: file, line: line)
        default:
            return BlobStoreError(
                .io, "\(call) failed on \(path).", path: path, errno: errno, file: file, line: line)
        }
    }
}

/// For apps that show errors to people: `localizedDescription` is the message (with the system's
/// reason for a failed call), and Foundation's `NSError` bridging carries the code as the
/// domain's string and the underlying error.
extension BlobStoreError: LocalizedError {
    public var errorDescription: String? { description }

    public var failureReason: String? { errno.map { String(cString: strerror($0)) } }
}

extension BlobStoreError: CustomNSError {
    public static var errorDomain: String { "BlobStore.BlobStoreError" }

    /// A stable number per code (its place in this list, from 1; 0 for a code made elsewhere),
    /// for `NSError.code`. New codes are added at the end. Numbers 14 to 16 are the codes of
    /// the cache library and the HTTP library, which define them (`undecodable`, `unencodable`,
    /// `network`): they were the core's once, and keep their numbers.
    public var errorCode: Int {
        let known: [Code] = [
            .notFound, .corrupt, .io, .noSpace, .permissionDenied, .notAStore, .unsupportedVersion, .busy,
            .invalidArgument, .unsafeLayout, .poisoned, .tooLarge, .closed, Code("undecodable"),
            Code("unencodable"), Code("network"), .digestMismatch,
        ]
        return known.firstIndex(of: code).map { $0 + 1 } ?? 0
    }

    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description, "BlobStoreErrorCode": code.rawValue]
        if let path { info[NSFilePathErrorKey] = path }
        if let underlyingError { info[NSUnderlyingErrorKey] = underlyingError as NSError }
        return info
    }
}
