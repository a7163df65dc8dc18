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

    /// Whether this entry holds `digest` with `metadata` (compared with one `memcmp`: it runs
    /// under the store's mutex on every memory hit).
    func holds(_ digest: SHA256Digest, metadata given: Data) -> Bool {
        self.digest == digest
            && metadata.withUnsafeBytes { stored in given.withUnsafeBytes { stored.hasSameBytes(as: $0) } }
    }
}
