import Glibc

/// Which version of a path a process last saw: the inode and the status-change time.
///
/// CURRENT is only ever replaced by `rename(2)`, so a new version means a new generation. The
/// inode alone is not enough: a file system may hand a freed inode number to the next new file,
/// and a process would then miss a generation and go on appending to a journal no one reads.
/// The change time (set when the file is written and renamed into place) tells them apart.
struct FileVersion: Equatable, Sendable {
    var inode: UInt64
    var changedSeconds: Int
    var changedNanoseconds: Int

    init(_ info: stat) {
        inode = UInt64(info.st_ino)
        changedSeconds = Int(info.st_ctim.tv_sec)
        changedNanoseconds = Int(info.st_ctim.tv_nsec)
    }

    /// The version of the file at `path` (not following a symbolic link), or `nil` if there is none.
    static func of(_ path: String) throws -> FileVersion? {
        try Syscalls.lstat(path).map(FileVersion.init)
    }
}
