import BlobStore

extension Runner {
    /// `gc [<limits>] [--grace <duration>] [--dry-run] [--json]`: evicts entries over the limits
    /// (the recorded ones, overridden for this run by the options) and deletes garbage. Creates
    /// no store.
    func collectGarbage(_ options: GarbageCollectionOptions) throws -> Int32 {
        let display = progressDisplay(label: "gc")
        let (limits, report) = try withStore(creating: false) { store in
            defer { display?.finish() }
            let limits = options.limits(over: store.limits)
            let report = try store.collectGarbage(
                limits: limits, gracePeriod: options.grace, dryRun: options.dryRun,
                progress: display?.callback)
            return (limits, report)
        }
        if options.json {
            try output.writeJSON(report)
        } else {
            let grace = options.grace ?? BlobStore.Configuration().gracePeriod
            try output.write(Self.summary(of: report, limits: limits, grace: grace))
        }
        return ExitCode.success
    }

    /// The human-readable report; a dry run says so first.
    static func summary(of report: GarbageCollectionReport, limits: EvictionLimits, grace: Duration) -> String {
        let bytes = QuantityFormat.bytes
        let reasons = [
            "\(report.expiredEntries) expired", "\(report.agedEntries) idle too long",
            "\(report.leastRecentlyUsedEntries) least recently used",
        ]
        let text = rows([
            ("limits", describe(limits)),
            ("grace period", QuantityFormat.duration(grace)),
            (
                "evicted",
                "\(count(report.evictedEntries, "entry", "entries")), \(bytes(report.evictedBytes)) "
                    + "(\(reasons.joined(separator: ", ")))"
            ),
            ("blobs deleted", "\(report.blobsDeleted), \(bytes(report.blobBytesDeleted))"),
            ("blobs kept", "\(report.blobsKeptYoung) unreferenced, younger than the grace period"),
            (
                "packs",
                "\(report.packsRewritten) rewritten (\(count(report.needlesMoved, "needle", "needles")) moved), "
                    + "\(report.packsDeleted) deleted, \(bytes(report.packBytesDeleted))"
            ),
            ("temporary files", "\(report.temporaryFilesDeleted) deleted, \(bytes(report.temporaryBytesDeleted))"),
            ("old generations", "\(count(report.oldGenerationFilesDeleted, "file", "files")) deleted"),
            ("after", "\(count(report.entriesAfter, "entry", "entries")), \(bytes(report.storedBytesAfter)) stored"),
            ("time", QuantityFormat.duration(seconds: report.seconds)),
        ])
        return report.dryRun ? "Dry run: nothing was changed. A real run would do this:\n" + text : text
    }

    /// `capacity 1.0 MiB, max entries none, max age 7d, low water 0.9`.
    static func describe(_ limits: EvictionLimits) -> String {
        [
            "capacity " + (limits.capacity.map(QuantityFormat.bytes) ?? "none"),
            "max entries " + (limits.maxEntries.map(String.init) ?? "none"),
            "max age " + (limits.maxAge.map(QuantityFormat.duration) ?? "none"),
            "low water \(limits.lowWater)",
        ].joined(separator: ", ")
    }
}
