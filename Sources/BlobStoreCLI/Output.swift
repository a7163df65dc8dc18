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

    /// Writes `value` as pretty-printed JSON with sorted keys and unescaped slashes, and a newline.
    func writeJSON(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try write(try encoder.encode(value))
        try write("\n")
    }

    /// Writes to standard error, where a failure has nowhere to be reported.
    func report(_ text: String) {
        try? write(text)
    }
}
