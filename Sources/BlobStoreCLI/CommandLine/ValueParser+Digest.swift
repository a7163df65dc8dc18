import BlobStore

extension ValueParser<SHA256Digest> {
    /// `blob <digest>`: exactly 64 hexadecimal digits, lowercase as `put` and `ls` print them, or
    /// uppercase (some tools print digests so; the case does not change the number). Nothing
    /// else: no `sha256:` prefix, no spaces. Spelled in lowercase.
    static var digest: ValueParser {
        ValueParser(
            forms: "the 64 hexadecimal digits of a SHA-256, as 'blobstore put' and 'blobstore ls' print them",
            read: { text throws(ValueProblem) in
                if let digest = SHA256Digest(hex: text) { return digest }
                if text.isEmpty { throw ValueProblem("it is empty") }
                if let bad = text.unicodeScalars.first(where: { !$0.properties.isASCIIHexDigit }) {
                    throw ValueProblem("\(ArgumentParser.shown(String(bad))) is not a hexadecimal digit")
                }
                throw ValueProblem("it has \(text.unicodeScalars.count) digits, not 64")
            }, spell: \.hex)
    }
}
