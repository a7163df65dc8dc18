import Foundation

/// The request header values a response's `Vary` names (RFC 9111 §4.1), normalized, as the
/// secondary key of a stored variant.
///
/// Names are lowercased and sorted; each value has its fields joined by `", "`, whitespace
/// around commas and at the ends removed and runs of whitespace collapsed, so that
/// `gzip,  br` and `gzip, br` select the same variant. An absent header differs from an empty
/// one.
public struct VaryKey: Sendable, Equatable, Codable {
    /// One named request header and its normalized value, `nil` when the request lacks it.
    public struct Element: Sendable, Equatable, Codable {
        /// The header name, lowercased.
        public var name: String
        /// The normalized value, or `nil` when absent.
        public var value: String?
    }

    /// The elements, sorted by name.
    public var elements: [Element]

    /// The values in `request` of the headers named by `names` (a `Vary` list).
    public init(names: [String], request: HTTPHeaders) {
        let lowered = Set(names.map { $0.lowercased() })
        elements = lowered.sorted().map { name in
            Element(name: name, value: request[name].map(Self.normalize))
        }
    }

    /// A key of `elements` as they were stored (``RecordJSONReader``).
    init(elements: [Element]) {
        self.elements = elements
    }

    /// The header names, lowercased and sorted.
    public var names: [String] { elements.map(\.name) }

    /// The text appended to a primary key to name this variant: one `name: value` line per
    /// element (`name` alone when absent).
    public var suffix: String {
        elements.map { element in
            element.value.map { "\(element.name): \($0)" } ?? element.name
        }.joined(separator: "\n")
    }

    /// `value` with whitespace around commas and at the ends removed and runs collapsed.
    public static func normalize(_ value: String) -> String {
        value.split(separator: ",", omittingEmptySubsequences: false)
            .map { part in
                part.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            }
            .joined(separator: ", ")
    }
}
