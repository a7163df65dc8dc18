/// The bytes of an HTTP/1.1 message head, written field by field: the start line, `Name: value`
/// lines and the empty line that ends it (RFC 9112 §2.1).
package struct HeadWriter {
    package private(set) var bytes: [UInt8] = []

    /// No line yet (for field lines written on their own).
    package init() {}

    /// A head starting with `HTTP/1.1 <status> <reason>`.
    package init(status: Int, reason: String) {
        self.init(startLine: "HTTP/1.1 \(status) \(reason)")
    }

    /// A head starting with `startLine` (a request line, `GET / HTTP/1.1`, or a status line).
    package init(startLine: String) {
        bytes.reserveCapacity(512)
        bytes.append(contentsOf: startLine.utf8)
        bytes.append(contentsOf: Self.lineEnd)
    }

    /// Appends field lines written before.
    package mutating func lines(_ lines: [UInt8]) {
        bytes.append(contentsOf: lines)
    }

    /// Appends the field line `name: value`.
    package mutating func field(_ name: String, _ value: String) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(contentsOf: Self.separator)
        bytes.append(contentsOf: value.utf8)
        bytes.append(contentsOf: Self.lineEnd)
    }

    /// The head, ended by its empty line.
    package consuming func ended() -> [UInt8] {
        bytes.append(contentsOf: Self.lineEnd)
        return bytes
    }

    private static let lineEnd: [UInt8] = [0x0D, 0x0A]
    private static let separator: [UInt8] = [UInt8(ascii: ":"), UInt8(ascii: " ")]
}
