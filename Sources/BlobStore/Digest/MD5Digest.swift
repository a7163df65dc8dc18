/// An MD5 digest, for legacy key-to-file-name compatibility and `Content-MD5` / ETag checks.
///
/// Never a content address: MD5 is broken for collision resistance.
public struct MD5Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes of the digest.
    public let bytes: [UInt8]

    init(uncheckedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The 32 lowercase hexadecimal characters of the digest.
    public var hex: String { lowercaseHex(bytes) }

    public var description: String { hex }
}
