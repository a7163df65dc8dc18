/// A system call the store makes, named as in its man page: the one that failed, in
/// ``BlobStoreError/call``.
public enum SystemCall: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case open, read, pread, write, pwrite, fsync, fdatasync, fstat, lstat, ftruncate, fcntl, fchmod, futimens
    case mkdir, link, rename, unlink, opendir, flock, mmap, lseek
    case memfdCreate = "memfd_create"

    /// Whether the call makes data durable (`fsync`, `fdatasync`): after one fails, nothing more
    /// may be acknowledged (docs/design.md, "The poison rule").
    public var isSync: Bool { self == .fsync || self == .fdatasync }

    /// The call's name, as in its man page (`memfd_create`).
    public var description: String { rawValue }
}
