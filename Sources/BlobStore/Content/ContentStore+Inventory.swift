import Glibc

// MARK: - What is on disk: blob files, stray files, rehashing

extension ContentStore {
    /// A regular file under `blobs/sha256/ab/` whose name is a digest that belongs in that shard.
    struct BlobFile: Sendable {
        var digest: SHA256Digest
        /// The size `lstat` gave when the directory was listed.
        var size: UInt64
    }

    /// The files of a store, as listed by ``inventory()``.
    struct Inventory: Sendable {
        /// Files named and placed as blobs, in listing order.
        var blobs: [BlobFile] = []
        /// Paths relative to the store root that do not belong there (``belongs(_:type:)``).
        var strays: [String] = []
    }

    /// Lists the store's top level, `packs/`, `blobs/`, `blobs/sha256/` and every shard, without following
    /// symbolic links. `tmp/` and `quarantine/` are not entered.
    ///
    /// A name that vanishes between the listing and its `lstat` (another process at work) is
    /// skipped; a directory that vanishes reads as empty.
    func inventory() throws -> Inventory {
        var inventory = Inventory()
        var pending = [""]
        while let directory = pending.popLast() {
            for name in try listIfPresent(directory) {
                let relative = directory.isEmpty ? name : directory + "/" + name
                guard let info = try Syscalls.lstat(layout.root + "/" + relative) else { continue }
                let type = info.st_mode & S_IFMT
                guard belongs(relative, type: type) else {
                    inventory.strays.append(relative)
                    continue
                }
                let depth = relative.utf8.count(where: { $0 == UInt8(ascii: "/") })
                if type == S_IFDIR && (depth > 0 || name == "blobs" || name == "packs") {
                    pending.append(relative)
                } else if depth == 3, let digest = SHA256Digest(hex: name) {
                    inventory.blobs.append(BlobFile(digest: digest, size: UInt64(info.st_size)))
                }
            }
        }
        return inventory
    }

    /// Whether a file of `type` (`S_IFREG`, `S_IFDIR`, … from `st_mode`) belongs at `relative`
    /// (a path inside the store, without a leading `/`).
    ///
    /// At the top level, the store's own names (``StoreLayout/isStoreFileName(_:)``) and a
    /// regular `limits` file, `policy-<N>` files and companion files belong, and `blobs` and `packs` must be directories. In `packs/`,
    /// regular files named `pack-<number>` belong. Under `blobs/`, only the
    /// directories `sha256` and `sha256/ab` (two lowercase hex digits) and, in a shard, regular
    /// files named by 64 lowercase hex digits that start with the shard's two belong.
    func belongs(_ relative: String, type: mode_t) -> Bool {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where parts[0] == "blobs" || parts[0] == "packs":
            return type == S_IFDIR
        case 1
        where parts[0] == "limits" || StoreLayout.isCompanionFileName(String(parts[0]))
            || StoreLayout.isPolicyFileName(String(parts[0])):
            return type == S_IFREG
        case 1:
            return StoreLayout.isStoreFileName(String(parts[0]))
        case 2 where parts[0] == "packs":
            return PackFormat.packNumber(ofFileNamed: String(parts[1])) != nil && type == S_IFREG
        case 2:
            return parts[0] == "blobs" && parts[1] == "sha256" && type == S_IFDIR
        case 3:
            return parts[0] == "blobs" && parts[1] == "sha256" && Self.isLowercaseHex(parts[2], count: 2)
                && type == S_IFDIR
        case 4:
            return parts[0] == "blobs" && parts[1] == "sha256" && Self.isLowercaseHex(parts[3], count: 64)
                && parts[3].hasPrefix(parts[2]) && type == S_IFREG
        default:
            return false
        }
    }

    private static func isLowercaseHex(_ name: Substring, count: Int) -> Bool {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let letters = UInt8(ascii: "a")...UInt8(ascii: "f")
        return name.utf8.count == count && name.utf8.allSatisfy { digits.contains($0) || letters.contains($0) }
    }

    private func listIfPresent(_ relative: String) throws -> [String] {
        do {
            return try Syscalls.listDirectory(relative.isEmpty ? layout.root : layout.root + "/" + relative)
        } catch let error as BlobStoreError where error.code == .notFound {
            return []
        }
    }

    /// Moves a stray file or directory to `quarantine/stray-<its path, "/" as "_">-<random>`, so
    /// one can see where it was. The name is cut to 200 bytes.
    func quarantineStray(_ relative: String) throws {
        let name = Array(("stray-" + relative.replacing("/", with: "_")).utf8.prefix(200))
        try quarantine(path: layout.root + "/" + relative, name: String(decoding: name, as: UTF8.self))
    }

    // MARK: - Rehashing

    /// What rehashing one blob file found.
    enum Rehash: Sendable {
        /// The bytes hash to `digest`; `size` is the number of bytes read.
        case hashed(SHA256Digest, size: UInt64)
        /// Nothing is at the blob's name.
        case missing
        /// The file cannot serve as a blob: not a regular file, or the disk failed to read it.
        case unreadable(reason: String)
    }

    /// Streams the file at `digest`'s name through SHA-256 in `buffer`-sized `pread`s, without
    /// following a link and without blocking on a FIFO.
    ///
    /// - Throws: ``BlobStoreError`` for failures that are not the file's fault (permissions,
    ///   too many open files); `EIO` is the file's fault and returns ``Rehash/unreadable(reason:)``.
    func rehash(_ digest: SHA256Digest, buffer: UnsafeMutableRawBufferPointer) throws -> Rehash {
        let fd: FileDescriptor
        do {
            fd = try Syscalls.open(layout.checkedBlobPath(digest), O_RDONLY | O_NONBLOCK)
        } catch let error as BlobStoreError where error.errno == ENOENT {
            return .missing
        } catch let error as BlobStoreError where error.errno == ELOOP {
            return .unreadable(reason: "a symbolic link, not a file")
        }
        defer { Syscalls.close(fd) }
        do {
            guard try Syscalls.fstat(fd).st_mode & S_IFMT == S_IFREG else {
                return .unreadable(reason: "not a regular file")
            }
            let hasher = SHA256Hasher()
            var size: UInt64 = 0
            while true {
                let count = try Syscalls.preadFully(fd, into: buffer, at: Int64(size))
                if count == 0 { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                size += UInt64(count)
            }
            return .hashed(hasher.finalize(), size: size)
        } catch let error as BlobStoreError where error.errno == EIO {
            return .unreadable(reason: "reading it failed: \(error)")
        }
    }
}
