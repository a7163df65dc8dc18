import Glibc
import Synchronization

/// A store directory's device and inode, so that one process opens each store once.
struct StoreIdentity: Hashable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// Stores open in this process. A second open of the same directory (by any path) throws
    /// instead of creating a second index and journal descriptor beside the first.
    static let openInProcess = Mutex<Set<StoreIdentity>>([])
}
