import CLinux
import Glibc

/// Every system call the store makes, each wrapped once: `EINTR` is retried in one helper and
/// failures become ``BlobStoreError`` values that name the call and the path.
///
/// In builds with `BLOBSTORE_FAULT_INJECTION` (debug builds: Package.swift), calls that change
/// files go through `FaultInjection`'s hooks when a test has installed a plan (one relaxed atomic
/// load otherwise); other builds contain no hook.
enum Syscalls {
    #if BLOBSTORE_FAULT_INJECTION
        /// Whether a fault-injection plan is installed.
        @inline(__always)
        private static var injecting: Bool { FaultInjection.isActive.load(ordering: .relaxed) }
    #endif

    // MARK: - Helpers

    /// Runs `body` until it does not fail with `EINTR`; returns its result or throws.
    @inline(__always)
    private static func retrying<T: BinaryInteger>(
        _ call: SystemCall, _ path: String, _ body: () -> T
    ) throws -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code == EINTR { continue }
            throw BlobStoreError.system(call, path: path, errno: code)
        }
    }

    // MARK: - Opening and closing

    /// `open(2)` with `O_CLOEXEC | O_NOFOLLOW` always added: the store never follows a link.
    static func open(_ path: String, _ flags: CInt, mode: mode_t = 0o600) throws -> FileDescriptor {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting && flags & O_CREAT != 0 { FaultInjection.willCreate(path, directory: false) }
        #endif
        let fd = try retrying(.open, path) {
            Glibc.open(path, flags | O_CLOEXEC | O_NOFOLLOW, mode)
        }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// Opens a caller's source file for reading. Unlike the store's own files, a link here is
    /// the caller's choice and is followed.
    static func openSource(_ path: String, _ flags: CInt = 0) throws -> FileDescriptor {
        let fd = try retrying(.open, path) { Glibc.open(path, O_RDONLY | O_CLOEXEC | flags) }
        return FileDescriptor(rawValue: fd, path: path)
    }

    /// `open(2)` that returns `nil` instead of throwing when the file does not exist.
    static func openIfExists(_ path: String, _ flags: CInt) throws -> FileDescriptor? {
        do {
            return try open(path, flags)
        } catch let error as BlobStoreError where error.errno == ENOENT {
            return nil
        }
    }

    /// A second descriptor on the same open file (`fcntl(F_DUPFD_CLOEXEC)`), for syncing it after
    /// the original may have been closed.
    static func duplicate(_ fd: FileDescriptor) throws -> FileDescriptor {
        let copy = try retrying(.fcntl, fd.path) { fcntl(fd.rawValue, F_DUPFD_CLOEXEC, 0) }
        return FileDescriptor(rawValue: copy, path: fd.path)
    }

    /// Opens a directory for `fsync` and `flock`.
    static func openDirectory(_ path: String) throws -> FileDescriptor {
        try open(path, O_RDONLY | O_DIRECTORY)
    }

    /// `close(2)`. Errors are ignored: on Linux the descriptor is gone either way (man 2 close).
    static func close(_ fd: FileDescriptor) {
        _ = Glibc.close(fd.rawValue)
    }

    // MARK: - Reading and writing

    /// `read(2)` until `buffer` is full or end of file; returns the bytes read.
    static func readFully(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try retrying(.read, fd.path) {
                Glibc.read(fd.rawValue, buffer.baseAddress! + done, buffer.count - done)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// One `read(2)` (retried on `EINTR`); `nil` when it fails, for callers that then take a
    /// slower path that reports the error properly.
    static func readOnce(_ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while true {
            let n = Glibc.read(fd.rawValue, buffer.baseAddress, buffer.count)
            if n >= 0 { return n }
            if errno != EINTR { return nil }
        }
    }

    /// `pread(2)` until `buffer` is full or end of file; returns the bytes read.
    static func preadFully(
        _ fd: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64
    ) throws -> Int {
        var done = 0
        while done < buffer.count {
            let n = try retrying(.pread, fd.path) {
                Glibc.pread(fd.rawValue, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    /// `write(2)` until every byte is written, or with `offset`, `pwrite(2)` there (a needle
    /// appended to a pack).
    static func writeFully(_ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer, at offset: UInt64? = nil) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting {
                try FaultInjection.check(.write, fd.path)
                FaultInjection.willModify(fd)
            }
        #endif
        var done = 0
        while done < buffer.count {
            let start = buffer.baseAddress! + done
            let n = try retrying(offset == nil ? .write : .pwrite, fd.path) {
                if let offset {
                    return Glibc.pwrite(fd.rawValue, start, buffer.count - done, off_t(offset) + off_t(done))
                }
                return Glibc.write(fd.rawValue, start, buffer.count - done)
            }
            done += n
        }
    }

    /// One `write(2)` of the whole buffer, for `O_APPEND` journal records.
    ///
    /// A short write (the disk filled mid-record) throws: the caller treats the bytes written as
    /// a torn tail, which readers ignore and the next exclusive holder truncates.
    static func writeOnce(_ fd: FileDescriptor, _ buffer: UnsafeRawBufferPointer) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting {
                try FaultInjection.check(.write, fd.path)
                FaultInjection.willModify(fd)
            }
        #endif
        let n = try retrying(.write, fd.path) {
            Glibc.write(fd.rawValue, buffer.baseAddress, buffer.count)
        }
        if n != buffer.count {
            throw BlobStoreError(
                .noSpace,
                "write to \(fd.path) was cut short (\(n) of \(buffer.count) bytes); "
                    + "the file system is probably full.", path: fd.path)
        }
    }

    // MARK: - Durability

    /// `fsync(2)`. Errors are returned to the caller, which poisons its handle (docs/design.md, "The poison rule").
    static func fsync(_ fd: FileDescriptor) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { try FaultInjection.check(.sync, fd.path, call: .fsync) }
        #endif
        _ = try retrying(.fsync, fd.path) { Glibc.fsync(fd.rawValue) }
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { FaultInjection.didSync(fd) }
        #endif
    }

    /// `fdatasync(2)`: data and the size, not the timestamps.
    static func fdatasync(_ fd: FileDescriptor) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { try FaultInjection.check(.sync, fd.path, call: .fdatasync) }
        #endif
        _ = try retrying(.fdatasync, fd.path) { Glibc.fdatasync(fd.rawValue) }
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { FaultInjection.didSync(fd) }
        #endif
    }

    /// `sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE)`: starts writing `fd`'s dirty pages back
    /// without waiting, so that the `fdatasync`s of a group commit that follow overlap on the
    /// device instead of running one after another. Not a durability point (the `fdatasync` is);
    /// errors are left to it.
    static func startWriteback(_ fd: FileDescriptor) {
        _ = blobstore_start_writeback(fd.rawValue)
    }

    /// Opens `path` (a directory), `fsync`s it and closes it, so that entries created or renamed
    /// in it survive a power loss.
    static func fsyncDirectory(_ path: String) throws {
        let fd = try openDirectory(path)
        defer { close(fd) }
        try fsync(fd)
    }

    // MARK: - Metadata

    /// `fstat(2)`.
    static func fstat(_ fd: FileDescriptor) throws -> stat {
        var info = stat()
        _ = try retrying(.fstat, fd.path) { Glibc.fstat(fd.rawValue, &info) }
        return info
    }

    /// `lstat(2)`, or `nil` when nothing is at `path`.
    static func lstat(_ path: String) throws -> stat? {
        var info = stat()
        if Glibc.lstat(path, &info) == 0 { return info }
        let code = errno
        if code == ENOENT { return nil }
        throw BlobStoreError.system(.lstat, path: path, errno: code)
    }

    /// `ftruncate(2)`.
    static func ftruncate(_ fd: FileDescriptor, to length: Int64) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { FaultInjection.willModify(fd) }
        #endif
        _ = try retrying(.ftruncate, fd.path) { Glibc.ftruncate(fd.rawValue, off_t(length)) }
    }

    /// The access mode `fd` was opened with (`O_RDONLY`, `O_WRONLY` or `O_RDWR`).
    static func accessMode(_ fd: FileDescriptor) throws -> CInt {
        try retrying(.fcntl, fd.path) { Glibc.fcntl(fd.rawValue, F_GETFL) } & O_ACCMODE
    }

    /// `fchmod(2)`.
    static func fchmod(_ fd: FileDescriptor, _ mode: mode_t) throws {
        _ = try retrying(.fchmod, fd.path) { Glibc.fchmod(fd.rawValue, mode) }
    }

    /// `futimens(fd, NULL)`: sets both timestamps to now.
    static func touch(_ fd: FileDescriptor) throws {
        _ = try retrying(.futimens, fd.path) { Glibc.futimens(fd.rawValue, nil) }
    }

    // MARK: - Names

    /// `mkdir(2)`; returns `false` when something already exists at `path`.
    @discardableResult
    static func mkdir(_ path: String, mode: mode_t = 0o700) throws -> Bool {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting {
                try FaultInjection.check(.mkdir, path)
                FaultInjection.willCreate(path, directory: true)
            }
        #endif
        if Glibc.mkdir(path, mode) == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        throw BlobStoreError.system(.mkdir, path: path, errno: code)
    }

    /// `link(2)`; returns `false` when `newPath` already exists (it is never replaced).
    static func link(_ oldPath: String, _ newPath: String) throws -> Bool {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting {
                try FaultInjection.check(.link, newPath)
                FaultInjection.willLink(to: newPath)
            }
        #endif
        if Glibc.link(oldPath, newPath) == 0 { return true }
        let code = errno
        if code == EEXIST { return false }
        throw BlobStoreError.system(.link, path: newPath, errno: code)
    }

    /// `rename(2)`.
    static func rename(_ oldPath: String, _ newPath: String) throws {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting {
                try FaultInjection.check(.rename, newPath)
                FaultInjection.willRename(oldPath, newPath)
            }
        #endif
        if Glibc.rename(oldPath, newPath) == 0 { return }
        throw BlobStoreError.system(.rename, path: newPath, errno: errno)
    }

    /// `unlink(2)`; returns `false` when nothing was there.
    @discardableResult
    static func unlink(_ path: String) throws -> Bool {
        #if BLOBSTORE_FAULT_INJECTION
            if injecting { FaultInjection.willUnlink(path) }
        #endif
        if Glibc.unlink(path) == 0 { return true }
        let code = errno
        if code == ENOENT { return false }
        throw BlobStoreError.system(.unlink, path: path, errno: code)
    }

    /// The names in a directory, without `.` and `..`.
    static func listDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else {
            throw BlobStoreError.system(.opendir, path: path, errno: errno)
        }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    // MARK: - Locks

    /// `flock(2)` without blocking; returns `false` when another descriptor holds a conflicting lock.
    static func tryFlock(_ fd: FileDescriptor, _ operation: CInt) throws -> Bool {
        while true {
            if blobstore_flock(fd.rawValue, operation | LOCK_NB) == 0 { return true }
            let code = errno
            if code == EINTR { continue }
            if code == EWOULDBLOCK { return false }
            throw BlobStoreError.system(.flock, path: fd.path, errno: code)
        }
    }

    /// `flock(fd, LOCK_UN)`.
    static func unlock(_ fd: FileDescriptor) {
        _ = blobstore_flock(fd.rawValue, LOCK_UN)
    }

    // MARK: - Shared memory

    /// Bytes mapped by ``mapSharedPage(_:writable:)``.
    static let sharedPageSize = 4096

    /// Maps the first ``sharedPageSize`` bytes of `fd` shared between processes, growing a shorter
    /// file to that size first when `writable`. `nil` when the file is shorter and cannot be
    /// grown, or the mapping fails: callers then do without. Neither call is seen by fault
    /// injection: the page holds no durable state.
    static func mapSharedPage(_ fd: FileDescriptor, writable: Bool) -> UnsafeMutableRawPointer? {
        var info = stat()
        guard Glibc.fstat(fd.rawValue, &info) == 0 else { return nil }
        if info.st_size < sharedPageSize {
            guard writable, Glibc.ftruncate(fd.rawValue, off_t(sharedPageSize)) == 0 else { return nil }
        }
        let protection = writable ? PROT_READ | PROT_WRITE : PROT_READ
        guard let page = mmap(nil, sharedPageSize, protection, MAP_SHARED, fd.rawValue, 0), page != MAP_FAILED else {
            return nil
        }
        return page
    }

    /// Unmaps a page from ``mapSharedPage(_:writable:)``.
    static func unmapSharedPage(_ page: UnsafeMutableRawPointer) {
        _ = munmap(page, sharedPageSize)
    }

    /// Maps `length` bytes of `fd` read-only and shared, from offset 0; the file may be shorter
    /// (touching a page past its end raises `SIGBUS`, so callers read only what `fstat` showed).
    static func mapReadOnly(_ fd: FileDescriptor, length: Int) throws -> UnsafeRawPointer {
        guard let address = mmap(nil, length, PROT_READ, MAP_SHARED, fd.rawValue, 0), address != MAP_FAILED else {
            throw BlobStoreError.system(.mmap, path: fd.path, errno: errno)
        }
        return UnsafeRawPointer(address)
    }

    /// Unmaps what ``mapReadOnly(_:length:)`` mapped.
    static func unmap(_ address: UnsafeRawPointer, length: Int) {
        _ = munmap(UnsafeMutableRawPointer(mutating: address), length)
    }

    /// `length` bytes of private anonymous memory (`mmap(2)`), asking for transparent huge pages
    /// (`madvise(MADV_HUGEPAGE)`): a large buffer filled once then costs a page fault per 2 MiB
    /// instead of per 4 KiB. `nil` when the mapping fails. Free with ``unmap(_:length:)``.
    static func allocateLarge(_ length: Int) -> UnsafeMutableRawPointer? {
        guard let address = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            address != MAP_FAILED
        else { return nil }
        _ = madvise(address, length, MADV_HUGEPAGE)
        return address
    }

    /// An unnamed file in `directory` (`open(2)` with `O_TMPFILE`), open for reading and
    /// writing, freed when its last descriptor closes: for large bytes that must not stay in
    /// memory. Throws where the file system or the directory's permissions do not allow it.
    static func unnamedFile(in directory: String, mode: mode_t) throws -> FileDescriptor {
        try open(directory, blobstore_o_tmpfile() | O_RDWR, mode: mode)
    }

    /// An anonymous file in memory (`memfd_create(2)`), open for reading and writing; it is
    /// freed when the last descriptor on it closes. Needs no writable directory, so it works in a
    /// store open for reading only.
    static func memoryFile(named name: String) throws -> FileDescriptor {
        let fd = try retrying(.memfdCreate, name) { blobstore_memfd_create(name, blobstore_mfd_cloexec()) }
        return FileDescriptor(rawValue: fd, path: "memfd:" + name)
    }

    /// `lseek(fd, 0, SEEK_SET)`.
    static func rewind(_ fd: FileDescriptor) throws {
        _ = try retrying(.lseek, fd.path) { Glibc.lseek(fd.rawValue, 0, SEEK_SET) }
    }

    // MARK: - Process

    /// The process id, for unique temporary names.
    static var processID: Int32 { getpid() }

    /// The effective user id, compared with the owner of the store directory.
    static var effectiveUserID: uid_t { geteuid() }

    /// Whether a process with id `pid` exists (`kill(pid, 0)`; one of another user counts).
    static func processExists(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// Sleeps for `microseconds`.
    static func sleep(microseconds: UInt32) { usleep(microseconds) }

    /// Wall-clock milliseconds since the Unix epoch.
    static func nowMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }

    /// Monotonic nanoseconds, for timeouts (``MonotonicInstant``).
    static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    /// A random 64-bit value (the standard library's generator reads `getrandom(2)`), for
    /// temporary names.
    static func random64() -> UInt64 {
        UInt64.random(in: .min ... .max)
    }
}
