import BlobStore
import Foundation

extension Runner {
    /// `stats [--json]`: the store's counts and sizes.
    func stats(json: Bool) throws -> Int32 {
        let stats = try withStore(creating: false) { store in try store.stats() }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try output.write(try encoder.encode(stats))
            try output.write("\n")
        } else {
            try output.write(Self.summary(of: stats))
        }
        return ExitCode.success
    }

    /// The human-readable statistics, one `name: value` line each.
    static func summary(of stats: StoreStats) -> String {
        let saved = stats.logicalBytes > stats.storedBytes ? stats.logicalBytes - stats.storedBytes : 0
        let rows: [(String, String)] = [
            ("entries", "\(stats.entries)"),
            ("distinct blobs", "\(stats.distinctBlobs)"),
            ("logical bytes", "\(stats.logicalBytes)"),
            ("stored bytes", "\(stats.storedBytes)"),
            ("saved by dedup", "\(saved)"),
            ("journal bytes", "\(stats.journalBytes)"),
            ("generation", "\(stats.generation)"),
        ]
        return rows.map { name, value in
            (name + ":").padding(toLength: 16, withPad: " ", startingAt: 0) + value + "\n"
        }.joined()
    }
}
