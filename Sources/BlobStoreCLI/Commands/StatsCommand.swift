import BlobStore
import BlobStoreRemote
import Foundation

/// `blobstore stats [--json]`: its description, its value, and its run below.
struct StatsCommand: SubcommandValue {
    /// `--json`: print the statistics as a JSON object.
    var json = false

    static let spec = CommandSpec<StatsCommand>(
        .stats,
        abstract: "Show the store's counts and sizes.",
        discussion: "'saved by dedup' is logical bytes minus stored bytes. A store with values kept as chunks "
            + "(put, fetch or serve with --chunk-threshold) also shows them, the distinct chunks they are made of and "
            + "what sharing chunks saves.",
        remote: .remote,
        options: [.flag("--json", help: "Print the statistics as a JSON object.", \.json)])

    func run(in runner: Runner) throws -> Int32 { try runner.stats(self) }
}

extension Runner {
    /// `stats [--json]`: the store's counts and sizes, and the remote counters of every command
    /// that used a remote with this store (its `remote-stats` file), when there are any or a
    /// remote is configured.
    func stats(_ command: StatsCommand) throws -> Int32 {
        let remote = try remoteBackend()
        let (stats, chunks, remoteStats) = try withStore(creating: false) { store in
            let recorded = RemoteStatsFile.read(store)
            return (try store.stats(), try store.chunkStats(), recorded ?? (remote != nil ? RemoteStats() : nil))
        }
        if command.json {
            try output.writeJSON(StatsReport(store: stats, chunks: chunks, remote: remoteStats))
        } else {
            try output.write(
                Self.summary(of: stats, chunks: chunks) + (remoteStats.map(Self.remoteSummary) ?? ""))
        }
        return ExitCode.success
    }

    /// The remote counters, one `remote …: value` line each.
    static func remoteSummary(of stats: RemoteStats) -> String {
        rows([
            ("remote hits", "\(stats.hits)"),
            ("remote misses", "\(stats.misses)"),
            ("remote errors", "\(stats.errors)"),
            ("remote rejected", "\(stats.verificationFailures)"),
            ("remote dangling", "\(stats.danglingRecords)"),
            ("remote uploads", "\(stats.uploads)"),
            ("remote skipped", "\(stats.skippedUploads)"),
            ("remote cool-down skips", "\(stats.coolDownSkips)"),
            ("remote bytes up", QuantityFormat.bytesAndExact(stats.bytesUp)),
            ("remote bytes down", QuantityFormat.bytesAndExact(stats.bytesDown)),
        ])
    }

    /// The human-readable statistics, one `name: value` line each; sizes for people and
    /// exactly (`1.2 MiB (1234567 bytes)`). The chunk lines come only for a store with chunked
    /// values.
    static func summary(of stats: StoreStats, chunks: ChunkStats = ChunkStats()) -> String {
        let saved = stats.logicalBytes > stats.storedBytes ? stats.logicalBytes - stats.storedBytes : 0
        let bytes = QuantityFormat.bytesAndExact
        return rows(
            [
                ("entries", "\(stats.entries)"),
                ("distinct blobs", "\(stats.distinctBlobs)"),
                ("logical bytes", bytes(stats.logicalBytes)),
                ("stored bytes", bytes(stats.storedBytes)),
                ("saved by dedup", bytes(saved)),
            ] + chunkRows(chunks)
                + [
                    ("journal bytes", bytes(stats.journalBytes)),
                    ("manifest bytes", bytes(stats.manifestBytes)),
                    ("generation", "\(stats.generation)"),
                ] + usageRows(stats.allProcesses))
    }

    /// The chunked values, their distinct chunks and what sharing chunks saves, or nothing for
    /// a store without chunked values.
    private static func chunkRows(_ chunks: ChunkStats) -> [(String, String)] {
        guard chunks.chunkedValues > 0 else { return [] }
        return [
            ("chunked values", "\(chunks.chunkedValues) (\(QuantityFormat.bytesAndExact(chunks.chunkedBytes)))"),
            (
                "distinct chunks",
                "\(chunks.distinctChunks) (\(QuantityFormat.bytesAndExact(chunks.distinctChunkBytes)))"
            ),
            ("saved by chunks", QuantityFormat.bytesAndExact(chunks.savedByChunkSharing)),
        ]
    }

    /// The hits, misses, hit ratio and evictions of every process that wrote the store, or
    /// nothing when its LOCK page could not be read.
    private static func usageRows(_ usage: StoreUsage?) -> [(String, String)] {
        guard let usage else { return [] }
        let ratio = usage.hitRatio.map { String(format: "%.1f%%", $0 * 100) } ?? "none"
        return [
            ("hits", "\(usage.hits)"), ("misses", "\(usage.misses)"), ("hit ratio", ratio),
            (
                "evictions",
                "\(usage.evictions) (\(usage.expiredEvictions) expired, \(usage.agedEvictions) idle too long, "
                    + "\(usage.chosenByPolicy) over a limit)"
            ),
        ]
    }
}
