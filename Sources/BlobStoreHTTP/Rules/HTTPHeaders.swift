import Foundation

/// HTTP header fields in the order received, looked up by name without regard to case.
public struct HTTPHeaders: Sendable, Equatable, Codable, Sequence, ExpressibleByDictionaryLiteral {
    /// One header field.
    public struct Field: Sendable, Equatable, Codable {
        /// The name as received.
        public var name: String
        /// The value, with surrounding whitespace removed.
        public var value: String

        /// A field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Headers made of `fields`.
    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// Headers from `(name, value)` pairs.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { Field(name: $0.0, value: $0.1.trimmingOptionalWhitespace()) }
    }

    /// Headers from a `URLRequest`'s or `HTTPURLResponse`'s dictionary, sorted by name (a
    /// dictionary has no order).
    public init(_ dictionary: [AnyHashable: Any]) {
        self.fields = dictionary.compactMap { name, value -> Field? in
            guard let name = name as? String else { return nil }
            return Field(name: name, value: "\(value)".trimmingOptionalWhitespace())
        }.sorted { $0.name.lowercased() < $1.name.lowercased() }
    }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }

    /// The values of every field named `name` (any case) joined by `", "`, or `nil` when there
    /// is none.
    public subscript(_ name: String) -> String? {
        // By index: a field is read where it is, not copied (two retains and releases) per name.
        var found: String?
        for index in fields.indices where Self.sameName(fields[index].name, name) {
            found = found.map { $0 + ", " + fields[index].value } ?? fields[index].value
        }
        return found
    }

    /// Whether the value of `name` (``subscript(_:)``, its fields' values joined) is `value`: a
    /// name with one field is compared without the join.
    package func has(_ name: String, _ value: String) -> Bool {
        var found: Int?
        for index in fields.indices where Self.sameName(fields[index].name, name) {
            guard found == nil else { return self[name] == value }  // several: joined
            found = index
        }
        return found.map { fields[$0].value == value } ?? false
    }

    /// Whether `name` is one of `names`, without regard to ASCII case.
    package static func isOne(of names: [String], _ name: String) -> Bool {
        names.contains { sameName($0, name) }
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Whether the fields carry a validator for a conditional request: `ETag` or `Last-Modified`.
    public var hasValidator: Bool { contains("ETag") || contains("Last-Modified") }

    /// Replaces every field named `name` (any case) by one with `value`, or removes them when
    /// `value` is `nil`.
    public mutating func set(_ name: String, _ value: String?) {
        guard let value else {
            // Removing a name the fields do not have leaves shared storage shared (not copied).
            if contains(name) { fields.removeAll { Self.sameName($0.name, name) } }
            return
        }
        // Room for the new field first: shared storage is copied once, not copied then grown.
        fields.reserveCapacity(fields.count + 1)
        fields.removeAll { Self.sameName($0.name, name) }
        fields.append(Field(name: name, value: value))
    }

    /// Appends a field, keeping those of the same name (for a name the fields do not have,
    /// ``set(_:_:)`` without its search).
    package mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// The comma-separated elements of the fields named `name`, trimmed, empty ones dropped.
    public func list(_ name: String) -> [String] {
        var elements: [String] = []
        for field in fields where Self.sameName(field.name, name) {
            _ = Self.firstElement(of: field.value) { element in
                elements.append(String(decoding: element, as: UTF8.self))
                return false
            }
        }
        return elements
    }

    /// Whether one of the elements of the list fields named `name` is `member`, without regard
    /// to ASCII case: ``list(_:)`` searched without making the list (`Connection: close` is
    /// looked for in every message).
    package func listContains(_ name: String, _ member: String) -> Bool {
        var member = member
        return member.withUTF8 { member in
            fields.contains { field in
                Self.sameName(field.name, name)
                    && Self.firstElement(of: field.value) { $0.count == member.count && Self.sameBytes($0, member) }
            }
        }
    }

    /// Calls `found` with each comma-separated element of the list `value`, without the spaces
    /// and tabs around it, empty ones skipped, until it returns `true`; returns whether it did.
    /// Split over the string's own bytes (a comma is ASCII, so each end is a character boundary):
    /// a view's index is slow to move.
    private static func firstElement(of value: String, where found: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var value = value
        return value.withUTF8 { list in
            var start = 0
            while start < list.count {
                var end = start
                while end < list.count, list[end] != UInt8(ascii: ",") { end += 1 }
                var (first, last) = (start, end)
                while first < last, isOptionalWhitespace(list[first]) { first += 1 }
                while first < last, isOptionalWhitespace(list[last - 1]) { last -= 1 }
                if last > first, found(UnsafeBufferPointer(rebasing: list[first..<last])) { return true }
                start = end + 1
            }
            return false
        }
    }

    /// Whether `byte` is a space or a tab (OWS, RFC 9110 §5.6.3).
    private static func isOptionalWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    /// The fields as a dictionary for `HTTPURLResponse`, repeated names joined by `", "`.
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        for field in fields {
            if let existing = result.first(where: { Self.sameName($0.key, field.name) }) {
                result[existing.key] = existing.value + ", " + field.value
            } else {
                result[field.name] = field.value
            }
        }
        return result
    }

    /// Whether two field names are equal without regard to ASCII case (field names are tokens:
    /// ASCII only, so no locale or Unicode folding is needed — and none is paid for).
    ///
    /// Most names compared differ in length: that part is inlined where it is called, and answers
    /// without a call or a pass over the bytes.
    @inlinable @inline(__always)
    package static func sameName(_ first: String, _ second: String) -> Bool {
        first.utf8.count == second.utf8.count && sameNameOfSameLength(first, second)
    }

    /// ``sameName(_:_:)`` for names of the same length.
    @usableFromInline
    static func sameNameOfSameLength(_ first: String, _ second: String) -> Bool {
        let compared = first.utf8.withContiguousStorageIfAvailable { a in
            second.utf8.withContiguousStorageIfAvailable { b in sameBytes(a, b) }
        }
        if let compared, let result = compared { return result }
        return first.utf8.elementsEqual(second.utf8) { lowercase($0) == lowercase($1) }
    }

    /// Whether `a` and `b`, of the same count, are equal without regard to ASCII case.
    @inlinable
    static func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<a.count where a[index] != b[index] {
            guard lowercase(a[index]) == lowercase(b[index]) else { return false }
        }
        return true
    }

    @inlinable
    static func lowercase(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
