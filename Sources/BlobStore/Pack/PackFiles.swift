import Foundation
import Glibc

/// The packs one process uses: those it has mapped for reading, and the one it appends to.
///
/// Lives in ``StoreState``, so everything here runs under the store's mutex. A read finds a
/// needle here and copies it out after the mutex is let go (``PackedRead``): a mapping is a
/// ``FileMapping``, unmapped when the last reference goes, so a pack this process stops using
/// stays mapped until the reads that found a needle in it are done.
///
/// Every pack is mapped ``PackFormat/maximumPackSize`` bytes long whatever its size, so a pack
/// that grows never needs a new mapping. Touching a page past the end of the file would raise
/// `SIGBUS`, so a needle is read only below ``Mapping/knownSize``, the size `fstat` last showed;
/// a needle beyond it costs one `lstat` to learn the new size. The store never truncates a pack
/// (docs/design.md, "Packs").
struct PackFiles: Sendable {
    /// One pack mapped read-only and shared.
    struct Mapping {
        let file: FileMapping
        /// The file's size when last looked at: every byte below it can be read.
        var knownSize: UInt64
        let device: UInt64
        let inode: UInt64
    }

    /// The pack this process appends to, open for writing.
    struct Writer {
        let number: UInt32
        let descriptor: FileDescriptor
        let device: UInt64
        let inode: UInt64
    }

    /// Where ``append(_:digest:index:layout:fileMode:)`` put a needle.
    struct Appended {
        var location: PackLocation
        /// The pack file was created: `packs/` gained an entry.
        var createdPack: Bool
        /// Packs this process appended to before and has stopped using (the newest moved on, or
        /// the file was deleted), still open: to be synced or closed by the caller.
        var retired: [FileDescriptor]
    }

    private var mappings: [UInt32: Mapping] = [:]
    private(set) var writer: Writer?

    // MARK: - Reading

    /// Finds the needle at `location`, which a record says holds `size` bytes hashing to
    /// `digest`, to be read with the mutex let go (``PackedRead/read()``). `missing` when the
    /// pack file is gone or shorter than the needle (a pack deleted by a repack this index has
    /// not seen yet, or one lost with a power cut); `corrupt` when the place is impossible or the
    /// pack's own header is damaged.
    mutating func locate(
        _ location: PackLocation, size: UInt64, digest: SHA256Digest, layout: StoreLayout
    ) -> PackedRead {
        let end = location.offset &+ PackFormat.needleSize(size)
        guard size <= UInt64(PackFormat.maximumPackedValue), location.offset >= PackFormat.headerSize,
            end <= PackFormat.maximumPackSize
        else { return .corrupt(reason: "needle at \(location.offset) outside a pack") }
        if mappings[location.pack] == nil, let problem = map(location.pack, layout: layout) { return problem }
        var mapping = mappings[location.pack]!
        if end > mapping.knownSize {
            // The pack grew since it was mapped (or it is short): look again.
            guard let info = try? Syscalls.lstat(layout.pack(location.pack)),
                UInt64(info.st_dev) == mapping.device, UInt64(info.st_ino) == mapping.inode
            else { return .missing }
            mapping.knownSize = max(mapping.knownSize, min(UInt64(max(0, info.st_size)), PackFormat.maximumPackSize))
            mappings[location.pack] = mapping
            guard end <= mapping.knownSize else { return .missing }
        }
        return .needle(
            PackedRead.Needle(
                mapping: mapping.file, readable: Int(mapping.knownSize), offset: location.offset, size: size,
                digest: digest))
    }

    /// ``locate(_:size:digest:layout:)`` and the copy, for callers that hold the mutex anyway
    /// (repacking, verifying).
    mutating func read(
        _ location: PackLocation, size: UInt64, digest: SHA256Digest, layout: StoreLayout
    ) -> ContentStore.ReadResult {
        locate(location, size: size, digest: digest, layout: layout).read()
    }

    /// The bytes at a needle's place (header and value, as many as the pack holds), unchecked:
    /// a damaged needle's evidence, for `quarantine/`. `nil` when the pack cannot be read there.
    mutating func rawNeedle(_ location: PackLocation, size: UInt64, layout: StoreLayout) -> [UInt8]? {
        if mappings[location.pack] == nil, map(location.pack, layout: layout) != nil { return nil }
        guard let mapping = mappings[location.pack], location.offset < mapping.knownSize else { return nil }
        let end = min(mapping.knownSize, location.offset &+ PackFormat.needleSize(size))
        return Array(mapping.file.bytes[Int(location.offset)..<Int(end)])
    }

    /// Maps pack `number` after checking its header; returns why it cannot be read, or `nil`.
    private mutating func map(_ number: UInt32, layout: StoreLayout) -> PackedRead? {
        let fd: FileDescriptor
        do {
            guard let opened = try Syscalls.openIfExists(layout.pack(number), O_RDONLY | O_NONBLOCK) else {
                return .missing
            }
            fd = opened
        } catch {
            return .corrupt(reason: "the pack cannot be opened (\(error))")
        }
        defer { Syscalls.close(fd) }
        guard let info = try? Syscalls.fstat(fd), info.st_mode & S_IFMT == S_IFREG else {
            return .corrupt(reason: "the pack is not a regular file")
        }
        guard Self.hasValidHeader(fd, number: number) else {
            return .corrupt(reason: "the pack's header is damaged")
        }
        guard let file = try? FileMapping(fd, length: Int(PackFormat.maximumPackSize)) else { return .missing }
        let mapping = Mapping(
            file: file, knownSize: min(UInt64(info.st_size), PackFormat.maximumPackSize), device: UInt64(info.st_dev),
            inode: UInt64(info.st_ino))
        mappings[number] = mapping
        return nil
    }

    /// Whether `fd` starts with a pack header naming pack `number`, of a version this code reads.
    static func hasValidHeader(_ fd: FileDescriptor, number: UInt32) -> Bool {
        var bytes = [UInt8](repeating: 0, count: Int(PackFormat.headerSize))
        guard let count = try? bytes.withUnsafeMutableBytes({ try Syscalls.preadFully(fd, into: $0, at: 0) }),
            count == bytes.count
        else { return false }
        return PackFormat.parseHeader(bytes) == number
    }

    /// Unmaps the packs in which `index` has nothing live: their files are deleted or about to
    /// be, and a mapping would keep their disk space in use.
    mutating func unmapUnused(_ index: StoreIndex) {
        guard !mappings.isEmpty else { return }
        mappings = mappings.filter { number, _ in (index.packs[number]?.live ?? 0) > 0 }
    }

    /// Unmaps every pack and stops appending. The writer's descriptor goes to `unsynced` when it
    /// has needles not yet synced (it is synced and closed by the next group commit), and is
    /// closed otherwise.
    mutating func closeAll(keepingUnsynced unsynced: inout [FileDescriptor], writerUnsynced: Bool = false) {
        mappings.removeAll()
        if let writer {
            if writerUnsynced { unsynced.append(writer.descriptor) } else { Syscalls.close(writer.descriptor) }
        }
        writer = nil
    }

    /// Stops appending to the writer's pack if it is one of `numbers`, packs this process is
    /// deleting (nothing in them lives, so nothing in them needs a sync), and closes its
    /// descriptor, which would otherwise keep the deleted file's disk in use: the next append
    /// opens its pack by number and finds it gone.
    mutating func closeWriter(ifAppendingTo numbers: [UInt32]) {
        guard let writer, numbers.contains(writer.number) else { return }
        Syscalls.close(writer.descriptor)
        self.writer = nil
    }

    // MARK: - Appending

    /// Appends a needle holding `value` to the newest pack (creating the next one when it is
    /// full, gone or damaged) with one `pwrite(2)`, and returns where it went. Call with the
    /// exclusive lock held, after catching up, so that `index` knows every needle placed so far.
    ///
    /// The needle goes at the larger of the file's size and the end of the furthest needle the
    /// index knows: bytes a dead writer left past the last record stay as dead space, and after a
    /// power loss that shortened a pack no new needle is placed where an old record points.
    ///
    /// With `trustingIndex` (nobody else took the exclusive lock since this process last let it
    /// go caught up: ``ChangeCounter/isQuiet``), the index's end of the pack is its size and the
    /// `fstat` is skipped, but for a pack opened by this call and for one with nothing live: any
    /// process may have deleted that (``StoreIndex/deadPacks``), before this process's last hold
    /// as well, and only the file tells. A pack in `avoiding` (one a repack is emptying) is never appended to:
    /// the needle goes to a new pack instead. A pack is closed once a needle would take it past `rotateAt` bytes
    /// (``BlobStore/Configuration/packSize``), but an empty pack takes any needle.
    mutating func append(
        _ value: UnsafeRawBufferPointer, digest: SHA256Digest, index: StoreIndex, layout: StoreLayout,
        fileMode: mode_t, rotateAt: UInt64 = PackFormat.maximumPackSize, avoiding: Set<UInt32> = [],
        trustingIndex: Bool = false
    ) throws -> Appended {
        let needleSize = PackFormat.needleSize(UInt64(value.count))
        var retired: [FileDescriptor] = []
        var createdPack = false
        var openedPack = false
        var target = index.activePack ?? 1
        if avoiding.contains(target) { target = index.nextPack }
        while true {
            if let writer, writer.number != target {
                retired.append(writer.descriptor)
                self.writer = nil
            }
            if writer == nil {
                guard target <= JournalFormat.maxPackNumber else {
                    throw BlobStoreError(
                        .corrupt, "The store has used every pack number; move \(layout.root) aside.",
                        path: layout.packsDirectory)
                }
                guard let opened = try open(target, isNew: target >= index.nextPack, layout: layout, fileMode: fileMode)
                else {
                    target += 1
                    continue
                }
                writer = opened.writer
                createdPack = createdPack || opened.created
                openedPack = true
            }
            let writer = writer!
            let usage = index.packs[target]
            let known = max(usage?.end ?? PackFormat.headerSize, PackFormat.headerSize)
            var offset = known
            var isLinked = true
            if !trustingIndex || openedPack || usage?.holdsOnlyDeadNeedles == true {
                let info = try Syscalls.fstat(writer.descriptor)
                offset = max(UInt64(max(0, info.st_size)), known)
                isLinked = info.st_nlink > 0
            }
            let fits =
                offset <= PackFormat.maximumPackSize - needleSize
                && (offset == PackFormat.headerSize || offset + needleSize <= rotateAt)
            guard isLinked, fits, !avoiding.contains(target) else {
                // Full, or deleted under us: never written again.
                target = max(target + 1, index.nextPack)
                continue
            }
            var needle = PackFormat.needleHeader(size: UInt32(value.count), digest: digest)
            needle.append(contentsOf: value)
            try needle.withUnsafeBytes { try Syscalls.writeFully(writer.descriptor, $0, at: offset) }
            if var mapping = mappings[target], mapping.inode == writer.inode, mapping.device == writer.device {
                mapping.knownSize = max(mapping.knownSize, offset + needleSize)
                mappings[target] = mapping
            }
            return Appended(
                location: PackLocation(pack: target, offset: offset), createdPack: createdPack, retired: retired)
        }
    }

    /// Opens pack `number` for appending, creating it when `isNew`. `nil` when that number cannot
    /// be used: an existing pack that is gone (deleted when its last needle died), or one whose
    /// header is damaged; the caller moves on to the next number.
    private func open(_ number: UInt32, isNew: Bool, layout: StoreLayout, fileMode: mode_t) throws
        -> (writer: Writer, created: Bool)?
    {
        let path = layout.pack(number)
        var created = false
        let fd: FileDescriptor
        if isNew {
            // Checked before anything is created in it: a link there would put the pack elsewhere.
            try layout.checkFixedDirectory(layout.packsDirectory)
            do {
                fd = try Syscalls.open(path, O_RDWR | O_CREAT | O_EXCL, mode: fileMode)
                created = true
            } catch let error as BlobStoreError where error.errno == EEXIST {
                // Left by a writer that died before its first record: no record names it.
                guard let existing = try Syscalls.openIfExists(path, O_RDWR) else { return nil }
                fd = existing
            }
        } else {
            guard let existing = try Syscalls.openIfExists(path, O_RDWR) else { return nil }
            fd = existing
        }
        do {
            let info = try Syscalls.fstat(fd)
            guard info.st_mode & S_IFMT == S_IFREG else {
                Syscalls.close(fd)
                return nil
            }
            if info.st_size < PackFormat.headerSize {
                guard isNew else {
                    Syscalls.close(fd)
                    return nil
                }
                try PackFormat.header(number).withUnsafeBytes { try Syscalls.writeFully(fd, $0, at: 0) }
            } else if !Self.hasValidHeader(fd, number: number) {
                Syscalls.close(fd)
                return nil
            }
            return (
                Writer(number: number, descriptor: fd, device: UInt64(info.st_dev), inode: UInt64(info.st_ino)), created
            )
        } catch {
            Syscalls.close(fd)
            throw error
        }
    }
}
