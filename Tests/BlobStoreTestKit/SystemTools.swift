import Foundation
import Glibc

/// What tests that need a tool or a privilege ask before they run; each says why it would be
/// skipped, for the test's `.enabled(if:_:)` comment to print.
public enum SystemTools {
    /// The path of `chattr`, which makes a file immutable (`chattr +i`), even for root.
    public static let chattrPath = "/usr/bin/chattr"

    /// Whether `chattr +i` works here: the tool is installed, the process may set the flag
    /// (`CAP_LINUX_IMMUTABLE`, usually root) and the temporary directory's file system has it.
    /// Tried on a scratch file, so a test is skipped only when the tool or the privilege is
    /// really absent.
    public static let chattrWorks: Bool = {
        guard FileManager.default.isExecutableFile(atPath: chattrPath) else { return false }
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        guard let probe = try? scratch.write("probe", Data()) else { return false }
        guard ChildProcess.status(chattrPath, ["+i", probe]) == 0 else { return false }
        ChildProcess.status(chattrPath, ["-i", probe])
        return true
    }()

    /// Why a test that needs `chattr +i` does not run, for `.enabled(if:_:)`.
    public static var chattrMissing: String {
        FileManager.default.isExecutableFile(atPath: chattrPath)
            ? "chattr +i is refused here (it needs CAP_LINUX_IMMUTABLE, usually root, and a file system with the flag)"
            : "\(chattrPath) is not installed (e2fsprogs)"
    }

    /// Whether this process runs as root (effective user 0).
    public static var isRoot: Bool { geteuid() == 0 }
}
