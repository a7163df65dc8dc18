/// A blob written to `tmp/` under a unique name, hashed while written, not yet linked into
/// `blobs/`. Its descriptor stays open so a durable mode can sync it before the link.
struct TemporaryBlob: Sendable {
    let path: String
    let descriptor: FileDescriptor
    let digest: SHA256Digest
    let size: UInt64
}
