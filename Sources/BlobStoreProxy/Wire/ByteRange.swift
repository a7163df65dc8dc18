/// A `Range: bytes=…` request field against a stored body of known length (RFC 9110 §14): the
/// proxy answers one byte range from a stored complete response with `206`.
enum ByteRange: Equatable {
    /// Serve the whole body (`200`): no range, several ranges, or a field that does not parse
    /// (which a server may ignore).
    case whole
    /// Serve these bytes (`206`).
    case part(Range<Int>)
    /// No byte of the range exists (`416`).
    case unsatisfiable

    /// The answer to `field` for a body of `length` bytes.
    static func of(_ field: String?, length: Int) -> ByteRange {
        guard let field else { return .whole }
        let trimmed = field.trimmingOptionalWhitespace()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count).trimmingOptionalWhitespace()
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingOptionalWhitespace()
        let last = spec[spec.index(after: dash)...].trimmingOptionalWhitespace()
        let isDigits = { (text: String) in
            !text.isEmpty && text.count <= 18 && text.allSatisfy { $0.isASCII && $0.isNumber }
        }
        if first.isEmpty {
            // A suffix: the last N bytes.
            guard isDigits(last), let count = Int(last) else { return .whole }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .part(max(0, length - count)..<length)
        }
        guard isDigits(first), let start = Int(first) else { return .whole }
        var end = length - 1
        if !last.isEmpty {
            guard isDigits(last), let given = Int(last), given >= start else { return .whole }
            end = min(given, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .part(start..<(end + 1))
    }
}
