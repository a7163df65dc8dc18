import BlobStore
import Foundation

// MARK: - async forms, run off the caller's thread

extension RemoteBackend {
    /// `async` ``containsBlob(_:)``. A cancelled task stops waiting and throws
    /// `CancellationError` (never a ``BlobStoreError/Code/remote`` error); the request finishes
    /// unobserved.
    public func containsBlob(_ digest: SHA256Digest) async throws -> Bool {
        try await offload(.stopWaiting) { try self.containsBlob(digest) }
    }

    /// `async` ``blob(_:maximumSize:)``, cancelled as ``containsBlob(_:)-7y0g5`` is.
    public func blob(_ digest: SHA256Digest, maximumSize: Int) async throws -> Data? {
        try await offload(.stopWaiting) { try self.blob(digest, maximumSize: maximumSize) }
    }

    /// `async` ``record(_:maximumSize:)``, cancelled as ``containsBlob(_:)-7y0g5`` is.
    public func record(_ keyDigest: SHA256Digest, maximumSize: Int) async throws -> Data? {
        try await offload(.stopWaiting) { try self.record(keyDigest, maximumSize: maximumSize) }
    }

    /// `async` ``putBlob(_:digest:)``. A task cancelled before the request starts throws
    /// `CancellationError`; a started request runs to its end.
    public func putBlob(_ data: Data, digest: SHA256Digest) async throws {
        try await offload { try self.putBlob(data, digest: digest) }
    }

    /// `async` ``putRecord(_:keyDigest:)``, cancelled as ``putBlob(_:digest:)-1bqf8`` is.
    public func putRecord(_ record: Data, keyDigest: SHA256Digest) async throws {
        try await offload { try self.putRecord(record, keyDigest: keyDigest) }
    }

    /// `async` ``removeRecord(_:)``, cancelled as ``putBlob(_:digest:)-1bqf8`` is.
    public func removeRecord(_ keyDigest: SHA256Digest) async throws {
        try await offload { try self.removeRecord(keyDigest) }
    }
}
