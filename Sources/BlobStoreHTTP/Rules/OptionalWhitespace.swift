extension StringProtocol {
    /// The text without the optional whitespace at either end: spaces and horizontal tabs, the
    /// only whitespace HTTP allows around values and list members (RFC 9110 §5.6.3). Read byte by
    /// byte, so a header value is trimmed without Foundation's Unicode character sets.
    package func trimmingOptionalWhitespace() -> String {
        let text = Substring(self)
        let bytes = text.utf8
        let isWhitespace = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
            let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return "" }
        // Both ends border an ASCII byte or an end of the text, so they are character boundaries.
        return String(text[first..<bytes.index(after: last)])
    }
}
