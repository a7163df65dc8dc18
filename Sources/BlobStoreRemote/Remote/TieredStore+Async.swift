import BlobStore
import Foundation

// MARK: - async forms of what is TieredStore's own (BlobStorage gives the others)

extension TieredStore {
    /// `async` ``upload(_:)``. A task cancelled before the upload starts throws
    /// `CancellationError`; a started upload runs to its end.
    @discardableResult
    public func upload(_ key: StoreKey) async throws -> Bool {
        try await offload { try self.upload(key) }
    }

    /// `async` ``saveStats()``; cancelled as ``upload(_:)-2vgay`` is.
    public func saveStats() async throws {
        try await offload { try self.saveStats() }
    }
}
