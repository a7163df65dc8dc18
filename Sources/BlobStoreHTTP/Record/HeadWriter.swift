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
        Self.append(literal: "HTTP/1.1 ", to: &bytes)
        Self.append(decimal: status, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        append(reason)
        endLine()
    }

    /// A head starting with `startLine` (a request line, `GET / HTTP/1.1`, or a status line).
    package init(startLine: String) {
        bytes.reserveCapacity(Self.capacity)
        append(startLine)
        endLine()
    }

    /// A head starting with the request line `<method> <target> HTTP/1.1`.
    package init(method: String, target: String) {
        bytes.reserveCapacity(Self.capacity)
        append(method)
        bytes.append(UInt8(ascii: " "))
        append(target)
        Self.append(literal: " HTTP/1.1", to: &bytes)
        endLine()
    }

    /// Appends field lines written before.
    package mutating func lines(_ lines: ArraySlice<UInt8>) {
        bytes.append(contentsOf: lines)
    }

    /// Appends the field line `name: value`.
    package mutating func field(_ name: String, _ value: String) {
        append(name)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        append(value)
        endLine()
    }

    /// Appends the field line `name: number` (decimal).
    package mutating func field(_ name: StaticString, _ number: Int) {
        append(name)
        Self.append(decimal: number, to: &bytes)
        endLine()
    }

    /// Appends the field line `name: <first>, <last>`, or `name: <last>` without `first`: a list
    /// field with a member added, without making a string of it.
    package mutating func field(_ name: StaticString, joining first: String?, _ last: String) {
        field(name, joining: first) { HeadWriter.append(last, to: &$0) }
    }

    /// Appends the field line `name: <first>, <last>`, or `name: <last>` without `first`, the
    /// last member's bytes appended by `last`.
    package mutating func field(_ name: StaticString, joining first: String?, _ last: (inout [UInt8]) -> Void) {
        append(name)
        if let first {
            append(first)
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

    /// Appends the bytes of `text`.
    private mutating func append(_ text: String) {
        Self.append(text, to: &bytes)
    }

    /// Appends the bytes of `text` to `bytes`, copied from the string's own storage at once:
    /// appended as a sequence of bytes, a string is read a byte at a time through its view,
    /// which was a tenth of the work of forwarding a response head.
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        withBytes(of: text) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with the UTF-8 bytes of `text` where they are (a native or small string's own
    /// storage, through its UTF-8 view), or in a contiguous copy of another (a bridged string).
    package static func withBytes<R>(of text: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable({ body(UnsafeRawBufferPointer($0)) }) {
            return result
        }
        var text = text
        return text.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// Appends `value` in decimal (a `-` first when negative) to `bytes`, its digits written in
    /// place: `String(value)` went through the integer's description, some 400 instructions for
    /// each status, length and age of a head.
    package static func append(decimal value: Int, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // The digits from the last, then swapped end for end where they are (a tuple as scratch
        // room makes the run time look up the tuple's type at every call; reversing a slice of
        // the array copies it).
        let start = bytes.count
        var rest = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
            rest /= 10
        } while rest > 0
        var (low, high) = (start, bytes.count - 1)
        while low < high {
            bytes.swapAt(low, high)
            (low, high) = (low + 1, high - 1)
        }
    }

    /// Appends the bytes of `literal` to `bytes`, at once.
    package static func append(literal: StaticString, to bytes: inout [UInt8]) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
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
