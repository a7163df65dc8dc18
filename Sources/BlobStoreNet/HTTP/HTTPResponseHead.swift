/// A response's status line and header fields, as received.
package struct HTTPResponseHead: Sendable, Equatable {
    /// One header field: the name as received, the value without surrounding whitespace.
    package struct Field: Sendable, Equatable {
        package var name: String
        package var value: String
    }

    package var status: Int
    /// The fields in the order received.
    package var fields: [Field]

    package init(status: Int, fields: [Field]) {
        self.status = status
        self.fields = fields
    }

    /// The values of every field named `name` (ASCII case ignored) joined by `", "`, or `nil`.
    package subscript(_ name: String) -> String? {
        let matching = fields.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        return matching.isEmpty ? nil : matching.joined(separator: ", ")
    }

    /// Whether the response to a `method` request has no body whatever its fields say
    /// (RFC 9112 §6.3): a reply to `HEAD`, `204` and `304`.
    package func hasNoBody(method: String) -> Bool {
        method == "HEAD" || status == 204 || status == 304
    }
}
