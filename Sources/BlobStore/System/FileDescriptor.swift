import Glibc

/// An open file descriptor and the path it was opened with (for error messages).
///
/// A plain value: closing is explicit (``Syscalls/close(_:)``), as with `FileDescriptor` in
/// swift-system.
struct FileDescriptor: Sendable {
    let rawValue: CInt
    let path: String
}
