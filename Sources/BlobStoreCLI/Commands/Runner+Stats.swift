import BlobStore
import Foundation

extension Runner {
    /// `stats [--json]`: the store's counts and sizes.
    func stats(json: Bool) throws -> Int32 {
        let stats = try withStore(creating: false) { store in try store.stats() }
        if json {
            try output.writeJSON(stats)
        } else {
            try output.write(Self.summary(of: stats))
        }
        return ExitCode.success
    }

    /// The human-readable statistics, one `name: value` line each.
    static func summary(of stats: StoreStats) -> String {
        let saved = stats.logicalBytes > stats.storedBytes ? stats.logicalBytes - stats.storedBytes : 0
        return rows([
            ("entries", "\(stats.entries)"),
            ("distinct blobs", "\(stats.distinctBlobs)"),
            ("logical bytes", "\(stats.logicalBytes)"),
            ("stored bytes", "\(stats.storedBytes)"),
            ("saved by dedup", "\(saved)"),
            ("journal bytes", "\(stats.journalBytes)"),
            ("manifest bytes", "\(stats.manifestBytes)"),
            ("generation", "\(stats.generation)"),
        ])
    }
}
