import Glibc
import Synchronization

// Compiled only with BLOBSTORE_FAULT_INJECTION (debug builds: Package.swift); a release build
// of the library contains none of it (.ci/run checks with nm).
#if BLOBSTORE_FAULT_INJECTION
    /// A test layer under ``Syscalls`` (`@_spi(Testing)`, not part of the API): it fails the n-th
    /// write, sync, rename, link or mkdir with an error of the test's choice (once, or from then on),
    /// and simulates a power loss by undoing every change not yet made durable.
    ///
    /// The power-loss model is the pessimistic one: file contents written since the file's last
    /// `fsync`/`fdatasync` are lost (the file goes back to its content at that sync, or empty if it
    /// was created since), and every directory change (create, link, rename, unlink, mkdir) not
    /// followed by an `fsync` of each directory it touched is undone, newest first. Real file
    /// systems keep some of that; code that is right under this model is right under theirs.
    ///
    /// Without a plan installed, each hooked system call costs one relaxed atomic load.
    @_spi(Testing) public enum FaultInjection {
        /// The operations a plan counts and can fail.
        public enum Operation: String, Sendable, CaseIterable {
            case write, sync, rename, link, mkdir

            /// The call a failure of this operation names when the hook is given none.
            var call: SystemCall {
                switch self {
                case .write: .write
                case .sync: .fsync
                case .rename: .rename
                case .link: .link
                case .mkdir: .mkdir
                }
            }
        }

        /// What to do while a plan is installed.
        public struct Plan: Sendable {
            /// Only paths under this directory are counted, failed and tracked (other tests in the
            /// same process use other directories).
            public var root: String
            /// Fail the operation with this 1-based number among the counted ones; `nil` only counts.
            public var failAt: Int?
            /// The error the failing operation reports (`ENOSPC`, `EIO`, …).
            public var errno: Int32
            /// Fail every counted operation from `failAt` on, not just that one.
            public var sticky: Bool

            public init(root: String, failAt: Int? = nil, errno: Int32 = EIO, sticky: Bool = false) {
                self.root = root
                self.failAt = failAt
                self.errno = errno
                self.sticky = sticky
            }
        }

        /// What happened while a plan was installed.
        public struct Outcome: Sendable, Equatable {
            /// Counted operations (including failed ones).
            public var operations: Int
            /// The first operation failed on purpose and its path, if one was.
            public var failed: String?
        }

        static let isActive = Atomic<Bool>(false)
        private static let state = Mutex<State?>(nil)

        /// Installs `plan`; the file system as it is now counts as durable.
        public static func begin(_ plan: Plan) {
            state.withLock { $0 = State(plan: plan) }
            isActive.store(true, ordering: .sequentiallyConsistent)
        }

        /// The first operation failed on purpose so far (`"sync <path>"`, …), if any.
        public static var firstFailure: String? {
            state.withLock { $0?.failed }
        }

        /// Removes the plan and returns what happened.
        @discardableResult
        public static func end() -> Outcome {
            isActive.store(false, ordering: .sequentiallyConsistent)
            return state.withLock { current in
                defer { current = nil }
                return Outcome(operations: current?.count ?? 0, failed: current?.failed)
            }
        }

        /// Undoes every change under the plan's root not yet durable (see the type's description)
        /// and removes the plan. Close the store first (with a sticky plan its writes fail from the
        /// moment the power is "lost").
        public static func simulatePowerLoss() -> Outcome {
            isActive.store(false, ordering: .sequentiallyConsistent)
            return state.withLock { current in
                defer { current = nil }
                guard var tracked = current else { return Outcome(operations: 0, failed: nil) }
                tracked.undoUnsyncedChanges()
                return Outcome(operations: tracked.count, failed: tracked.failed)
            }
        }

        // MARK: - Hooks called by Syscalls (only while active)

        /// Before a counted operation: throws the planned error, as system call `call` would, when
        /// its turn has come.
        static func check(_ operation: Operation, _ path: String, call: SystemCall? = nil) throws {
            let error: Int32? = state.withLock { current in
                guard current != nil else { return nil }
                return current!.count(operation, path)
            }
            if let error { throw BlobStoreError.system(call ?? operation.call, path: path, errno: error) }
        }

        /// Before `fd`'s content changes (write, truncate).
        static func willModify(_ fd: FileDescriptor) {
            state.withLock { $0?.willModify(fd) }
        }

        /// After `fd` was synced: its content (a file) or its entries (a directory) are durable.
        static func didSync(_ fd: FileDescriptor) {
            state.withLock { $0?.didSync(fd) }
        }

        /// Before `path` is created (a file opened with `O_CREAT`, or a directory).
        static func willCreate(_ path: String, directory: Bool) {
            state.withLock { $0?.willCreate(path, directory: directory) }
        }

        /// Before `link(from, to)`.
        static func willLink(to path: String) {
            state.withLock { $0?.willCreate(path, directory: false) }
        }

        /// Before `rename(from, to)`.
        static func willRename(_ from: String, _ to: String) {
            state.withLock { $0?.willRename(from, to) }
        }

        /// Before `unlink(path)`.
        static func willUnlink(_ path: String) {
            state.withLock { $0?.willUnlink(path) }
        }
    }

    // MARK: - The tracked state

    extension FaultInjection {
        /// A directory change not yet durable, and the directories whose sync would make it so.
        private struct Change {
            enum Kind {
                case created(String)
                case madeDirectory(String)
                case renamed(from: String, to: String, replaced: SavedFile?)
                case removed(String, SavedFile)
            }
            var kind: Kind
            var directories: Set<String>
        }

        /// A file's durable content and mode, to recreate it.
        private struct SavedFile {
            var content: [UInt8]
            var mode: mode_t
        }

        private struct State {
            let plan: Plan
            var count = 0
            var failed: String?
            /// Durable content of files changed since their last sync, by inode.
            var durableContent: [UInt64: [UInt8]] = [:]
            var changes: [Change] = []

            init(plan: Plan) { self.plan = plan }

            mutating func count(_ operation: Operation, _ path: String) -> Int32? {
                guard isTracked(path) else { return nil }
                count += 1
                guard let failAt = plan.failAt else { return nil }
                guard count == failAt || (plan.sticky && count > failAt) else { return nil }
                if failed == nil { failed = "\(operation.rawValue) \(path)" }
                return plan.errno
            }

            private func isTracked(_ path: String) -> Bool {
                path == plan.root || path.hasPrefix(plan.root + "/")
            }

            mutating func willModify(_ fd: FileDescriptor) {
                guard isTracked(fd.path) else { return }
                var info = stat()
                guard Glibc.fstat(fd.rawValue, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return }
                let inode = UInt64(info.st_ino)
                if durableContent[inode] == nil {
                    durableContent[inode] = Self.read("/proc/self/fd/\(fd.rawValue)") ?? []
                }
            }

            mutating func didSync(_ fd: FileDescriptor) {
                var info = stat()
                guard Glibc.fstat(fd.rawValue, &info) == 0 else { return }
                // A directory outside the root counts too: the root's own entry is in its parent.
                if info.st_mode & S_IFMT == S_IFDIR {
                    let directory = fd.path
                    for index in changes.indices { changes[index].directories.remove(directory) }
                    changes.removeAll { $0.directories.isEmpty }
                } else if isTracked(fd.path) {
                    durableContent[UInt64(info.st_ino)] = nil
                }
            }

            mutating func willCreate(_ path: String, directory: Bool) {
                guard isTracked(path) else { return }
                var info = stat()
                guard Glibc.lstat(path, &info) != 0 else { return }  // exists: nothing is created
                changes.append(
                    Change(
                        kind: directory ? .madeDirectory(path) : .created(path), directories: [Self.parent(path)]))
            }

            mutating func willRename(_ from: String, _ to: String) {
                guard isTracked(from) || isTracked(to) else { return }
                changes.append(
                    Change(
                        kind: .renamed(from: from, to: to, replaced: saved(to)),
                        directories: [Self.parent(from), Self.parent(to)]))
                forgetIfLastLink(to)
            }

            mutating func willUnlink(_ path: String) {
                guard isTracked(path), let file = saved(path) else { return }
                changes.append(Change(kind: .removed(path, file), directories: [Self.parent(path)]))
                forgetIfLastLink(path)
            }

            /// Drops what is known of the file at `path` when its last name goes: its inode number
            /// may be given to the next new file.
            private mutating func forgetIfLastLink(_ path: String) {
                var info = stat()
                guard Glibc.lstat(path, &info) == 0, info.st_nlink <= 1 else { return }
                durableContent[UInt64(info.st_ino)] = nil
            }

            /// The durable version of the regular file at `path`, or `nil` if there is none.
            private func saved(_ path: String) -> SavedFile? {
                var info = stat()
                guard Glibc.lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
                let content = durableContent[UInt64(info.st_ino)] ?? Self.read(path) ?? []
                return SavedFile(content: content, mode: info.st_mode & 0o7777)
            }

            /// Puts every file changed since its last sync back to its durable content, then undoes
            /// the directory changes not yet durable, newest first. Contents go first: they are known
            /// by inode, and undoing names frees and reuses inode numbers.
            mutating func undoUnsyncedChanges() {
                restoreContents(under: plan.root)
                durableContent = [:]
                for change in changes.reversed() {
                    switch change.kind {
                    case .created(let path):
                        _ = Glibc.unlink(path)
                    case .madeDirectory(let path):
                        // Its entry in the parent is gone, and everything under it with it.
                        Self.removeTree(path)
                    case .renamed(let from, let to, let replaced):
                        _ = Glibc.rename(to, from)
                        if let replaced { Self.write(to, replaced) }
                    case .removed(let path, let file):
                        Self.write(path, file)
                    }
                }
                changes = []
            }

            private func restoreContents(under directory: String) {
                for name in Self.names(in: directory) {
                    let path = directory + "/" + name
                    var info = stat()
                    guard Glibc.lstat(path, &info) == 0 else { continue }
                    switch info.st_mode & S_IFMT {
                    case S_IFDIR:
                        restoreContents(under: path)
                    case S_IFREG:
                        if let content = durableContent[UInt64(info.st_ino)] {
                            Self.overwrite(path, content, mode: info.st_mode & 0o7777)
                        }
                    default:
                        continue
                    }
                }
            }

            // MARK: Plain file access (not through Syscalls: these must not be counted or hooked)

            static func parent(_ path: String) -> String {
                guard let slash = path.lastIndex(of: "/") else { return "." }
                return slash == path.startIndex ? "/" : String(path[..<slash])
            }

            static func read(_ path: String) -> [UInt8]? {
                let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
                guard fd >= 0 else { return nil }
                defer { _ = Glibc.close(fd) }
                var content: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    content += buffer[0..<count]
                }
                return content
            }

            /// The names in a directory (empty if it cannot be read). Listing is not hooked.
            static func names(in directory: String) -> [String] {
                (try? Syscalls.listDirectory(directory)) ?? []
            }

            static func removeTree(_ path: String) {
                var info = stat()
                guard Glibc.lstat(path, &info) == 0 else { return }
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    _ = Glibc.unlink(path)
                    return
                }
                for name in names(in: path) { removeTree(path + "/" + name) }
                _ = Glibc.rmdir(path)
            }

            static func write(_ path: String, _ file: SavedFile) {
                _ = Glibc.unlink(path)
                overwrite(path, file.content, mode: file.mode)
            }

            static func overwrite(_ path: String, _ content: [UInt8], mode: mode_t) {
                _ = Glibc.chmod(path, 0o600)
                let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
                guard fd >= 0 else { return }
                _ = content.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                _ = Glibc.close(fd)
                _ = Glibc.chmod(path, mode)
            }
        }
    }
#endif
