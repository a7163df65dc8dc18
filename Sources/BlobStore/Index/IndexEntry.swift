import Foundation

/// What the in-memory index keeps for one key.
struct IndexEntry: Equatable, Sendable {
    var digest: SHA256Digest
    var size: UInt64
    /// Milliseconds since the Unix epoch.
    var created: Int64
    /// Milliseconds since the Unix epoch.
    var lastAccess: Int64
    /// Milliseconds since the Unix epoch, or `nil` for no expiry.
    var expires: Int64?
    var metadata: [UInt8]

    func isExpired(at now: Int64) -> Bool {
        expires.map { $0 <= now } ?? false
    }

    /// Whether this entry holds `digest` with `metadata`. The metadata is compared with one
    /// `memcmp`: compared a byte at a time (as a sequence, even through raw buffers), a 700-byte
    /// HTTP record cost more than the rest of a memory hit's check, which runs under the store's
    /// mutex.
    func holds(_ digest: SHA256Digest, metadata given: Data) -> Bool {
        self.digest == digest && metadata.count == given.count
            && metadata.withUnsafeBytes { stored in
                given.withUnsafeBytes { given in
                    stored.isEmpty || memcmp(stored.baseAddress!, given.baseAddress!, stored.count) == 0
                }
            }
    }
}
