/// A failure of a subcommand that is not a ``BlobStore/BlobStoreError``: a missing key, an
/// unreadable input file, a value that read back different.
struct CommandFailure: Error {
    /// The process exit code (``ExitCode``).
    var exitCode: Int32
    /// Printed after `Error: `.
    var message: String

    init(_ exitCode: Int32, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }
}
