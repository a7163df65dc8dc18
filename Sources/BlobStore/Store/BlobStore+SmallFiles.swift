import Glibc

/// Companion files: small files at the top of the store that other modules of the package keep
/// there, each named `<module>-stats` by the module that owns it (`StoreLayout.isCompanionFileName`);
/// read and written with the store's own rules — no link followed, no FIFO waited on, a bounded
/// read, an atomic replace with the configured file mode.
extension BlobStore {
    /// The bytes of the regular file `name` at the top of the store.
    ///
    /// The file is opened without following a link and without blocking (a FIFO does not hang),
    /// and at most `maximumSize` bytes are read.
    ///
    /// - Parameters:
    ///   - name: A companion file's name (`<module>-stats`).
    ///   - maximumSize: The most bytes accepted.
    /// - Returns: The bytes, or `nil` when there is no such file.
    /// - Throws: ``BlobStoreError/Code/invalidArgument`` for a name that is not a companion
    ///   file's; ``BlobStoreError/Code/corrupt`` for a link, a FIFO or another kind of file, or
    ///   one larger than `maximumSize`; ``BlobStoreError`` when it cannot be read.
    package func readSmallFile(_ name: String, maximumSize: Int) throws -> [UInt8]? {
        try Self.checkCompanionFileName(name)
        let path = layout.root + "/" + name
        let fd: FileDescriptor
        do {
            guard let opened = try Syscalls.openIfExists(path, O_RDONLY | O_NONBLOCK) else { return nil }
            fd = opened
        } catch let error as BlobStoreError where error.errno == ELOOP {
            throw BlobStoreError(.corrupt, "\(path) is a symbolic link, not a file.", path: path)
        }
        defer { Syscalls.close(fd) }
        let info = try Syscalls.fstat(fd)
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw BlobStoreError(.corrupt, "\(path) is not a regular file.", path: path)
        }
        guard info.st_size <= maximumSize else {
            throw BlobStoreError(.corrupt, "\(path) is larger than \(maximumSize) bytes.", path: path)
        }
        // One byte more than accepted, to notice a file that grew since fstat.
        var bytes = [UInt8](repeating: 0, count: maximumSize + 1)
        let count = try bytes.withUnsafeMutableBytes { try Syscalls.readFully(fd, into: $0) }
        guard count <= maximumSize else {
            throw BlobStoreError(.corrupt, "\(path) is larger than \(maximumSize) bytes.", path: path)
        }
        bytes.removeSubrange(count...)
        return bytes
    }

    /// Replaces the file `name` at the top of the store with `bytes`, atomically (temporary
    /// name `<name>.<hex>`, fsync, rename, directory fsync), with the configured file mode.
    ///
    /// - Throws: ``BlobStoreError/Code/invalidArgument`` for a name that is not a companion
    ///   file's (the store would count it as a stranger); ``BlobStoreError`` when it cannot be
    ///   written (a read-only store).
    package func writeSmallFile(_ name: String, _ bytes: [UInt8]) throws {
        try Self.checkCompanionFileName(name)
        try BlobStore.writeFileAtomically(
            layout.root + "/" + name, bytes, directory: layout.root, mode: configuration.fileMode)
    }

    /// Throws unless `name` is a companion file's name.
    private static func checkCompanionFileName(_ name: String) throws {
        guard StoreLayout.isCompanionFileName(name) else {
            throw BlobStoreError(
                .invalidArgument, "\(name) is not a companion file's name: use <module>-stats, lowercase letters.")
        }
    }
}
