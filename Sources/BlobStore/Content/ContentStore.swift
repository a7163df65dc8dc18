import Foundation
import Glibc
import Synchronization

/// The blob files: `blobs/sha256/ab/<64 hex>`, read-only, each written once.
///
/// Blobs are written to `tmp/` and hashed while written, then hard-linked into place with
/// `link(2)`, which never replaces an existing name. The store's lock is not needed to write a
/// temporary file, only to link it (so that GC and the journal agree).
struct ContentStore: Sendable {
    let layout: StoreLayout
    let fileMode: mode_t
    let directoryMode: mode_t

    /// The second half of temporary names: a counter from a random start, unique within the
    /// process without a `getrandom(2)` per name; the first half is the process id.
    private static let temporarySequence = Atomic<UInt64>(Syscalls.random64())

    /// Bytes read from a source stream per `read(2)`.
    static let chunkSize = 1 << 20

    // MARK: - Writing

    /// Writes `bytes` to a new temporary file while another thread hashes them
    /// (``OverlappedHashing``), for values whose digest is not known yet.
    func writeTemporaryHashing(_ bytes: UnsafeRawBufferPointer) throws -> TemporaryBlob {
        let (path, fd) = try createTemporaryFile()
        do {
            let digest = try OverlappedHashing.write(bytes, to: fd)
            try Syscalls.fchmod(fd, 0o400 & fileMode)
            return TemporaryBlob(path: path, descriptor: fd, digest: digest, size: UInt64(bytes.count))
        } catch {
            discard(path: path, descriptor: fd)
            throw error
        }
    }

    /// Writes `bytes`, whose digest the caller computed, to a new temporary file.
    func writeTemporary(_ bytes: UnsafeRawBufferPointer, digest: SHA256Digest) throws -> TemporaryBlob {
        let (path, fd) = try createTemporaryFile()
        do {
            try Syscalls.writeFully(fd, bytes)
            try Syscalls.fchmod(fd, 0o400 & fileMode)
        } catch {
            discard(path: path, descriptor: fd)
            throw error
        }
        return TemporaryBlob(path: path, descriptor: fd, digest: digest, size: UInt64(bytes.count))
    }

    /// Copies `prefix` (bytes already read from `source`), then `source`, to a new temporary file
    /// in ``chunkSize`` pieces, hashing as it goes; memory use does not depend on the size. Once
    /// more than `limit` bytes have been read, `refuse` is called with the count (it throws) and
    /// the temporary file is removed.
    func writeTemporary(
        streamingFrom source: FileDescriptor, after prefix: [UInt8] = [], limit: UInt64? = nil,
        refuse: (UInt64) throws -> Void = { _ in }
    ) throws -> TemporaryBlob {
        let writer = try temporaryWriter()
        do {
            if let limit, prefix.count > limit { try refuse(UInt64(prefix.count)) }
            try prefix.withUnsafeBytes { try writer.append($0) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let count = try Syscalls.readFully(source, into: buffer)
                if count == 0 { break }
                if let limit, writer.size + UInt64(count) > limit { try refuse(writer.size + UInt64(count)) }
                try writer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            }
            return try writer.finish(fileMode: fileMode)
        } catch {
            discard(writer)
            throw error
        }
    }

    /// A new temporary file to write a blob of unknown length into.
    func temporaryWriter() throws -> TemporaryBlobWriter {
        let (path, fd) = try createTemporaryFile()
        return TemporaryBlobWriter(path: path, descriptor: fd)
    }

    /// Removes a temporary file that ``temporaryWriter()`` made and will not be linked, and
    /// closes it.
    func discard(_ writer: TemporaryBlobWriter) {
        discard(path: writer.path, descriptor: writer.descriptor)
    }

    /// Removes a temporary blob that will not be linked, and closes it.
    func discard(_ blob: TemporaryBlob) {
        discard(path: blob.path, descriptor: blob.descriptor)
    }

    private func discard(path: String, descriptor: FileDescriptor) {
        Syscalls.close(descriptor)
        _ = try? Syscalls.unlink(path)
    }

    /// Creates an empty `tmp/<pid>-<random>` and returns its path, for a file written outside
    /// the store's own puts (a download spooled before it is stored). Garbage collection deletes
    /// it once its process is gone, like any temporary file.
    func createSpoolFile() throws -> String {
        let (path, fd) = try createTemporaryFile()
        Syscalls.close(fd)
        return path
    }

    /// Creates `tmp/<pid>-<random>`. `tmp/` is checked first (one `lstat`): a link put there
    /// while the store is open would make the new file, and the blob linked from it, land
    /// outside the store.
    private func createTemporaryFile() throws -> (String, FileDescriptor) {
        try layout.checkFixedDirectory(layout.tmp)
        let sequence = Self.temporarySequence.add(1, ordering: .relaxed).oldValue
        let name = "\(Syscalls.processID)-" + String(sequence, radix: 16)
        let path = layout.tmp + "/" + name
        let fd = try Syscalls.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: fileMode)
        return (path, fd)
    }

    /// Whether a sound copy of `digest` is already in `blobs/`, so a put can reuse it instead of
    /// linking a new one. Call with the store's lock held.
    ///
    /// A file of the wrong size, or (when `verify`) one that does not hash to its name, is moved
    /// to `quarantine/` and `false` is returned, so the caller links fresh bytes in its place. A
    /// reused file gets its timestamp refreshed (GC's grace period starts again) and, with
    /// `sync`, an `fdatasync`, since the process that wrote it may not have synced it.
    func reusableBlob(_ digest: SHA256Digest, size: UInt64, verify hashing: Bool, sync: Bool) throws -> Bool {
        let fd: FileDescriptor
        let info: stat
        switch try open(digest) {
        case .missing:
            return false
        case .notAFile:
            try quarantine(digest)
            return false
        case .file(let opened, let status):
            (fd, info) = (opened, status)
        }
        defer { Syscalls.close(fd) }
        var sound = UInt64(info.st_size) == size
        if sound && hashing {
            sound = try verify(fd, digest: digest, expectedSize: size).isFound
        }
        guard sound else {
            try quarantine(digest)
            return false
        }
        try? Syscalls.touch(fd)
        if sync { try Syscalls.fdatasync(fd) }
        return true
    }

    /// Links a temporary blob to its final name and removes the temporary name, unless a file is
    /// at that name already. Call with the store's lock held.
    ///
    /// - Returns: The directories that gained an entry (the shard, and `blobs/sha256` when the
    ///   shard was created), to be synced in durable modes; `nil` when something is at the name
    ///   (it is never replaced): the caller checks it with ``reusableBlob(_:size:verify:sync:)``,
    ///   which quarantines it if unsound, and links again.
    func link(_ blob: TemporaryBlob) throws -> [String]? {
        let shard = layout.shardDirectory(blob.digest.hex)
        var target = try layout.checkedBlobPath(blob.digest)
        var changed = [shard]
        do {
            guard try Syscalls.link(blob.path, target) else { return nil }
        } catch let error as BlobStoreError where error.errno == ENOENT {
            guard try Syscalls.lstat(blob.path) != nil else {
                throw BlobStoreError(
                    .io,
                    "The temporary file \(blob.path) was deleted before it could be linked (by a gc with a "
                        + "grace period shorter than the put?). Retry the put.", path: blob.path, errno: ENOENT)
            }
            if try Syscalls.mkdir(shard, mode: directoryMode) { changed.append(layout.blobsSHA256) }
            // Made here, or by another process meanwhile: checked either way before linking into it.
            target = try layout.checkedBlobPath(blob.digest)
            guard try Syscalls.link(blob.path, target) else { return nil }
        }
        _ = try? Syscalls.unlink(blob.path)
        return changed
    }

    // MARK: - Reading

    /// What reading a blob found.
    enum ReadResult: Equatable {
        case found(Data)
        case missing
        case corrupt(reason: String)

        var isFound: Bool {
            if case .found = self { return true }
            return false
        }
    }

    /// Reads a whole blob, checking its size and (when `verify`) its digest.
    ///
    /// With the size known, the common case costs `open`, one `read` and `close`: a read of one
    /// byte more than expected that returns exactly the expected count has read a whole regular
    /// file of that size. Anything else (a shorter or longer file, a directory, a FIFO) takes the
    /// path below, which looks at what is there and says why it is damaged.
    func read(_ digest: SHA256Digest, expectedSize: UInt64?, verify: Bool) throws -> ReadResult {
        if let expectedSize, expectedSize < Self.directReadLimit,
            let (data, hash) = try readDirectly(digest, size: Int(expectedSize), hashing: verify)
        {
            if verify, (hash ?? SHA256Hasher.hash(data)) != digest {
                return .corrupt(reason: "content does not hash to its name")
            }
            return .found(data)
        }
        return try readChecked(digest, expectedSize: expectedSize, verify: verify)
    }

    /// Values above this size are read by ``readChecked(_:expectedSize:verify:)``.
    private static let directReadLimit: UInt64 = 1 << 30

    /// The blob's bytes if reading `size + 1` bytes returns exactly `size`; `nil` for anything
    /// else (missing, a link, not a regular file, another size, a read error). Small blobs take
    /// one `read`; from ``OverlappedHashing/threshold`` on, with `hashing`, the bytes are hashed
    /// as they arrive and their digest is returned too.
    private func readDirectly(_ digest: SHA256Digest, size: Int, hashing: Bool) throws -> (Data, SHA256Digest?)? {
        let path = try layout.checkedBlobPath(digest)
        guard let fd = try? Syscalls.openIfExists(path, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { Syscalls.close(fd) }
        guard let memory = malloc(size + 1) else { return nil }
        let buffer = UnsafeMutableRawBufferPointer(start: memory, count: size + 1)
        var hash: SHA256Digest? = nil
        var count: Int?
        if hashing && size >= OverlappedHashing.threshold {
            let result = OverlappedHashing.read(fd, into: buffer)
            (count, hash) = (result?.count, result?.digest)
        } else {
            count = Syscalls.readOnce(fd, into: buffer)
        }
        guard count == size else {
            free(memory)
            return nil
        }
        return (Data(bytesNoCopy: memory, count: size, deallocator: .free), hash)
    }

    /// Reads a whole blob after looking at what is at its name.
    private func readChecked(_ digest: SHA256Digest, expectedSize: UInt64?, verify: Bool) throws -> ReadResult {
        let fd: FileDescriptor
        let info: stat
        switch try open(digest) {
        case .missing:
            return .missing
        case .notAFile(let reason):
            return .corrupt(reason: reason)
        case .file(let opened, let status):
            (fd, info) = (opened, status)
        }
        defer { Syscalls.close(fd) }
        let size = Int(info.st_size)
        if let expectedSize, UInt64(size) != expectedSize {
            return .corrupt(reason: "size \(size), expected \(expectedSize)")
        }
        var data = Data(count: size)
        let count = try data.withUnsafeMutableBytes { try Syscalls.readFully(fd, into: $0) }
        guard count == size else { return .corrupt(reason: "read \(count) of \(size) bytes") }
        if verify, SHA256Hasher.hash(data) != digest {
            return .corrupt(reason: "content does not hash to its name")
        }
        return .found(data)
    }

    /// What is at a blob's name, opened.
    enum OpenedBlob {
        case missing
        /// A symbolic link, a FIFO, a directory or a socket: never followed, read or waited on;
        /// damage, like a file of the wrong size.
        case notAFile(reason: String)
        /// A regular file, open for reading, and its status.
        case file(FileDescriptor, stat)
    }

    /// Opens a blob for reading without following a link or blocking on a FIFO.
    ///
    /// - Throws: ``BlobStoreError/Code/unsafeLayout`` when the shard directory is a link
    ///   (``StoreLayout/checkedBlobPath(_:)``), or the error of a failed `open` or `fstat`.
    func open(_ digest: SHA256Digest) throws -> OpenedBlob {
        let path = try layout.checkedBlobPath(digest)
        let fd: FileDescriptor
        do {
            // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. It has no
            // effect on a regular file.
            guard let opened = try Syscalls.openIfExists(path, O_RDONLY | O_NONBLOCK) else { return .missing }
            fd = opened
        } catch let error as BlobStoreError where error.errno == ELOOP {
            return .notAFile(reason: "a symbolic link, not a file")
        } catch let error as BlobStoreError where error.errno == ENXIO {
            return .notAFile(reason: "a socket, not a file")
        }
        let info: stat
        do {
            info = try Syscalls.fstat(fd)
        } catch {
            Syscalls.close(fd)
            throw error
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            Syscalls.close(fd)
            return .notAFile(reason: "not a regular file")
        }
        return .file(fd, info)
    }

    /// Checks an open blob by streaming it through SHA-256 (with `pread`, so the descriptor's
    /// offset stays at 0 for the caller).
    func verify(_ fd: FileDescriptor, digest: SHA256Digest, expectedSize: UInt64) throws -> ReadResult {
        let hasher = SHA256Hasher()
        var size: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try Syscalls.preadFully(fd, into: buffer, at: Int64(size))
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += UInt64(count)
        }
        guard size == expectedSize else { return .corrupt(reason: "size \(size), expected \(expectedSize)") }
        guard hasher.finalize() == digest else { return .corrupt(reason: "content does not hash to its name") }
        return .found(Data())
    }

    /// Copies an open blob to `destination` in ``chunkSize`` pieces (with `pread`, so the blob's
    /// offset stays where it is), appending at `destination`'s offset.
    func copy(_ fd: FileDescriptor, to destination: FileDescriptor) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        while true {
            let count = try Syscalls.preadFully(fd, into: buffer, at: offset)
            if count == 0 { return }
            try Syscalls.writeFully(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += Int64(count)
        }
    }

    /// A handle on an anonymous in-memory file holding `data`, at offset 0: what
    /// `fileHandle(for:)` returns for a packed value, which has no file of its own.
    func unnamedFile(containing data: Data) throws -> FileHandle {
        let fd = try Syscalls.memoryFile(named: "blobstore-packed-value")
        do {
            try data.withUnsafeBytes { try Syscalls.writeFully(fd, $0) }
            try Syscalls.rewind(fd)
        } catch {
            Syscalls.close(fd)
            throw error
        }
        return FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
    }

    // MARK: - Damage

    /// Moves a damaged blob (or whatever else is at its name) out of `blobs/` into
    /// `quarantine/`, keeping it for inspection.
    func quarantine(_ digest: SHA256Digest) throws {
        try quarantine(path: layout.checkedBlobPath(digest), name: digest.hex)
    }

    /// Moves whatever is at `path` (a link is moved, not followed) to
    /// `quarantine/<name>-<random>`; nothing there is not an error.
    func quarantine(path: String, name: String) throws {
        let quarantine = try layout.preparedQuarantine(mode: directoryMode)
        let target = quarantine + "/" + name + "-" + String(Syscalls.random64() & 0xffff_ffff, radix: 16)
        do {
            try Syscalls.rename(path, target)
        } catch let error as BlobStoreError where error.code == .notFound {
            return
        }
    }
}
