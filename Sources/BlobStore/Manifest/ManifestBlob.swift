/// One distinct blob as a format-2 manifest stores it: its digest, size, how many entries refer
/// to it, and where it is.
struct ManifestBlob: Equatable, Sendable {
    var digest: SHA256Digest
    var size: UInt64
    var references: Int
    var location: BlobLocation
}
