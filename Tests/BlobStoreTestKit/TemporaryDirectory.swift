import Foundation

/// A fresh directory under the system's temporary directory, mode 0700 whatever the umask (a
/// store refuses a directory others may write, and some tests open the directory itself as a
/// store); removed with everything in it by ``cleanup()``. The one temporary directory of every
/// test target.
public struct TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Creates the directory; a machine on which that fails cannot run the tests at all.
    public init() {
        path = NSTemporaryDirectory() + "blobstore-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The directory as a file URL.
    public var url: URL { URL(fileURLWithPath: path) }

    /// A path inside the directory (not created).
    public func child(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` inside the directory (creating the directories on the way) and
    /// returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: Data) throws -> String {
        let file = URL(fileURLWithPath: child(name))
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: file)
        return file.path
    }

    /// Removes the directory and everything in it.
    public func cleanup() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a new temporary directory and removes it afterwards.
public func withTemporaryDirectory<R>(_ body: (TemporaryDirectory) throws -> R) rethrows -> R {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    return try body(directory)
}
