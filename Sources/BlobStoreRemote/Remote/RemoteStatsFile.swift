import BlobStore
import Foundation
import Synchronization

/// The `remote-stats` file at the top of a store: the remote counters of every process that
/// used the store with a remote, as one JSON object (docs/remote.md, "Statistics").
///
/// A process adds its counters when it closes its ``TieredStore``: read, add, write to a
/// temporary name and rename, as the store writes its own files. Saves within one process are
/// serialized; two processes closing at the same instant may lose one's increments: the counters
/// are statistics, not accounting.
public enum RemoteStatsFile {
    /// The file's name in the store directory.
    public static let name = "remote-stats"
    /// The largest file read; a larger one is treated as corrupt.
    public static let maximumSize = 64 << 10

    /// Orders read-add-write cycles of this process.
    private static let saving = Mutex(())

    /// The counters recorded in `store`.
    ///
    /// - Returns: `nil` when the store has no `remote-stats` file; zero when the file cannot be
    ///   used (not a regular file, too large, not JSON, a negative counter).
    public static func read(_ store: BlobStore) -> RemoteStats? {
        let bytes: [UInt8]
        do {
            guard let read = try store.readSmallFile(name, maximumSize: maximumSize) else { return nil }
            bytes = read
        } catch {
            return RemoteStats()
        }
        return (try? JSONDecoder().decode(RemoteStats.self, from: Data(bytes))) ?? RemoteStats()
    }

    /// Adds `increment` to the counters recorded in `store` (saturating at the largest value).
    ///
    /// - Throws: `BlobStoreError` when the file cannot be written (a read-only store).
    public static func add(_ increment: RemoteStats, to store: BlobStore) throws {
        try saving.withLock { _ in
            let total = (read(store) ?? RemoteStats()) + increment
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            // Encoding integers cannot fail.
            guard let data = try? encoder.encode(total) else { preconditionFailure("RemoteStats did not encode") }
            try store.writeSmallFile(name, Array(data))
        }
    }
}
