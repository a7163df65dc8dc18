import Foundation

/// A body written to a file by ``FileBodies``.
struct FileBody: Sendable, Equatable {
    /// The file.
    var url: URL
    /// Its size in bytes.
    var count: Int
}
