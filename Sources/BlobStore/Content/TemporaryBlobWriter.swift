import Foundation

/// A blob being written to `tmp/` piece by piece, hashed as it goes (large pieces on another
/// thread, ``OverlappedHashing``): the one way a value of unknown length becomes a
/// ``TemporaryBlob``, from a file descriptor or from an `AsyncSequence`. Memory use does not
/// depend on the size.
///
/// Used by one thread at a time. Ends in ``finish(fileMode:)`` or in
/// ``ContentStore/discard(_:)-(TemporaryBlobWriter)``.
final class TemporaryBlobWriter: @unchecked Sendable {
    let path: String
    let descriptor: FileDescriptor
    private let hasher = SHA256Hasher()
    /// The bytes appended so far.
    private(set) var size: UInt64 = 0

    init(path: String, descriptor: FileDescriptor) {
        self.path = path
        self.descriptor = descriptor
    }

    /// Writes `bytes` after what was appended, and hashes them.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        if bytes.count >= OverlappedHashing.threshold {
            try OverlappedHashing.write(bytes, to: descriptor, updating: hasher)
        } else {
            hasher.update(bytes)
            try Syscalls.writeFully(descriptor, bytes)
        }
        size += UInt64(bytes.count)
    }

    /// The written blob, made read-only (`0o400` within `fileMode`), once the file is seen to
    /// hold every byte appended.
    func finish(fileMode: mode_t) throws -> TemporaryBlob {
        let written = try Syscalls.fstat(descriptor)
        guard UInt64(written.st_size) == size else {
            throw BlobStoreError(
                .io, "\(path) holds \(written.st_size) bytes after writing \(size); retry the put.", path: path)
        }
        try Syscalls.fchmod(descriptor, 0o400 & fileMode)
        return TemporaryBlob(path: path, descriptor: descriptor, digest: hasher.finalize(), size: size)
    }
}
