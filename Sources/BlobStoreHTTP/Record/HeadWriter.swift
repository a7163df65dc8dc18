/// The bytes of an HTTP/1.1 message head, written field by field: the start line, `Name: value`
/// lines and the empty line that ends it (RFC 9112 §2.1).
package struct HeadWriter {
    package private(set) var bytes: [UInt8] = []

    /// No line yet (for field lines written on their own), with room for `capacity` bytes.
    package init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    /// A head starting with `HTTP/1.1 <status> <reason>`.
    package init(status: Int, reason: String) {
        bytes.reserveCapacity(Self.capacity)
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.append(contentsOf: String(status).utf8)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: reason.utf8)
        endLine()
    }

    /// A head starting with `startLine` (a request line, `GET / HTTP/1.1`, or a status line).
    package init(startLine: String) {
        bytes.reserveCapacity(Self.capacity)
        bytes.append(contentsOf: startLine.utf8)
        endLine()
    }

    /// Appends field lines written before.
    package mutating func lines(_ lines: [UInt8]) {
        bytes.append(contentsOf: lines)
    }

    /// Appends the field line `name: value`.
    package mutating func field(_ name: String, _ value: String) {
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: value.utf8)
        endLine()
    }

    /// Appends the field line `name: number` (decimal). The digits make a small string, which
    /// Swift keeps inline: nothing is allocated or reference-counted.
    package mutating func field(_ name: StaticString, _ number: Int) {
        append(name)
        bytes.append(contentsOf: String(number).utf8)
        endLine()
    }

    /// Appends the field line `name: <first>, <last>`, or `name: <last>` without `first`: a list
    /// field with a member added, without making a string of it.
    package mutating func field(_ name: StaticString, joining first: String?, _ last: String) {
        field(name, joining: first) { $0.append(contentsOf: last.utf8) }
    }

    /// Appends the field line `name: <first>, <last>`, or `name: <last>` without `first`, the
    /// last member's bytes appended by `last`.
    package mutating func field(_ name: StaticString, joining first: String?, _ last: (inout [UInt8]) -> Void) {
        append(name)
        if let first {
            bytes.append(contentsOf: first.utf8)
            bytes.append(UInt8(ascii: ","))
            bytes.append(UInt8(ascii: " "))
        }
        last(&bytes)
        endLine()
    }

    /// `name: `.
    private mutating func append(_ name: StaticString) {
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
    }

    /// The head, ended by its empty line.
    package mutating func ended() -> [UInt8] {
        endLine()
        defer { bytes = [] }
        return bytes
    }

    /// The bytes reserved for a head: most fit.
    private static let capacity = 512

    /// CR LF, as two bytes rather than a constant array: an array would be retained at each line.
    private mutating func endLine() {
        bytes.append(0x0D)
        bytes.append(0x0A)
    }
}
