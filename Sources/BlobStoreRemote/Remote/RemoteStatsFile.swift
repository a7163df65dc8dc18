import BlobStore
import Foundation

/// The `remote-stats` file at the top of a store: the remote counters of every process that
/// used the store with a remote, as one JSON object (docs/remote.md, "Statistics").
///
/// A process adds its counters when it closes its ``TieredStore``: read, add, write to a
/// temporary name and rename. Two processes closing at the same instant may lose one's
/// increments; the counters are statistics, not accounting.
public enum RemoteStatsFile {
    /// The file's name in the store directory.
    public static let name = "remote-stats"

    /// The counters recorded in the store at `storePath`; zero when there are none or the
    /// file is unreadable.
    public static func read(storePath: String) -> RemoteStats {
        guard let data = FileManager.default.contents(atPath: storePath + "/" + name), data.count <= 64 << 10 else {
            return RemoteStats()
        }
        return (try? JSONDecoder().decode(RemoteStats.self, from: data)) ?? RemoteStats()
    }

    /// Adds `increment` to the counters recorded in the store at `storePath`.
    ///
    /// - Throws: ``BlobStoreError`` when the file cannot be written (a read-only store).
    public static func add(_ increment: RemoteStats, storePath: String) throws {
        let total = read(storePath: storePath) + increment
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(total)
        let path = storePath + "/" + name
        let temporary = path + "." + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw BlobStoreError(.permissionDenied, "Cannot write \(temporary); the remote counters were not saved.")
        }
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw BlobStoreError(.io, "Cannot rename \(temporary) to \(path).", path: path, errno: code)
        }
    }
}
