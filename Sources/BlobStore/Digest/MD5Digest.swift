/// An MD5 digest. Internal: the tests use it to check a published MD5 collision (keys that name
/// files by their MD5, as ISDiskCache did, would collide; this store keeps them apart).
///
/// Never a content address: MD5 is broken for collision resistance.
struct MD5Digest: Hashable, Sendable, CustomStringConvertible {
    /// The 16 bytes of the digest.
    let bytes: [UInt8]

    init(uncheckedBytes bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The 32 lowercase hexadecimal characters of the digest.
    var hex: String { lowercaseHex(bytes) }

    var description: String { hex }
}
