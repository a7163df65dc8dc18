import Foundation

/// Standard output or standard error.
struct Output {
    let handle: FileHandle

    init(_ handle: FileHandle) { self.handle = handle }

    /// Writes `text` as UTF-8.
    func write(_ text: String) throws {
        try handle.write(contentsOf: Data(text.utf8))
    }

    func write(_ bytes: Data) throws {
        try handle.write(contentsOf: bytes)
    }

    /// Writes to standard error, where a failure has nowhere to be reported.
    func report(_ text: String) {
        try? write(text)
    }
}
