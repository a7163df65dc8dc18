import BlobStore

/// `blobstore gc [<limits>] [--grace <duration>] [--dry-run] [--json]`: its description, its
/// value, and its run below. Each limit given overrides the one recorded in the store, for this
/// run only.
struct CollectGarbageCommand: SubcommandValue {
    /// `--capacity <size>`, in bytes.
    var capacity: UInt64?
    /// `--max-entries <n>`.
    var maxEntries: Int?
    /// `--max-age <duration>`.
    var maxAge: Duration?
    /// `--grace <duration>`; `nil` is the library's default grace period (one hour).
    var grace: Duration?
    /// `--dry-run`: report, change nothing.
    var dryRun = false
    /// `--json`: print the report as a JSON object.
    var json = false

    static let spec = CommandSpec<CollectGarbageCommand>(
        .gc,
        abstract: "Evict entries over the store's limits and delete unreferenced blobs and stale files.",
        discussion: "Evicts expired entries, entries idle longer than the maximum age and, while the store is "
            + "over its capacity or entry limit, the entries its eviction policy chooses (see 'blobstore "
            + "config --policy') until it is down to the low-water mark (0.9 of each limit unless "
            + "configured). Then rewrites the packs "
            + "of small values that are mostly dead (and, over the capacity, more of them), "
            + "deletes the packs and blob files no entry refers to and the temporary files of "
            + "interrupted writes, except blob and temporary files younger than the grace period, "
            + "which another process may still be writing, and deletes the files of old "
            + "generations a crash left behind. Without limit options the limits "
            + "recorded in the store apply (see 'blobstore config'); each limit option overrides the "
            + "recorded limit for this run only and records nothing. Progress is shown on standard "
            + "error when it is a terminal.",
        options: [
            .value(
                "--capacity", valueName: "<size>",
                help: "The most bytes the blobs may take: bytes, or a number with K, M, G or T (powers "
                    + "of 1024), e.g. 500M or 1.5G.", default: "the capacity recorded in the store",
                .capacity, \.capacity),
            .value(
                "--max-entries", valueName: "<n>", help: "The most entries.",
                default: "the limit recorded in the store",
                .maxEntries, \.maxEntries),
            .value(
                "--max-age", valueName: "<duration>",
                help: "Evict entries not read or written for longer than this: a number with ms, s, m, "
                    + "h, d or w, e.g. 7d.", default: "the limit recorded in the store", .maxAge, \.maxAge),
            .value(
                "--grace", valueName: "<duration>",
                help: "Keep unreferenced blobs and temporary files younger than this.",
                default: "1h", .duration, \.grace),
            .flag("--dry-run", help: "Report what would be evicted and deleted; change nothing.", \.dryRun),
            .flag("--json", help: "Print the report as a JSON object.", \.json),
        ])

    /// `recorded` with each limit given on the command line in place of the recorded one.
    ///
    /// - Parameter recorded: The store's limits (``BlobStore/BlobStore/limits``).
    /// - Returns: The limits for this run; the low-water mark is always the recorded one.
    func limits(over recorded: EvictionLimits) -> EvictionLimits {
        var limits = recorded
        if let capacity { limits.capacity = capacity }
        if let maxEntries { limits.maxEntries = maxEntries }
        if let maxAge { limits.maxAge = maxAge }
        return limits
    }

    func run(in runner: Runner) throws -> Int32 { try runner.collectGarbage(self) }
}

extension Runner {
    /// `gc [<limits>] [--grace <duration>] [--dry-run] [--json]`: evicts entries over the limits
    /// (the recorded ones, overridden for this run by the options) and deletes garbage. Creates
    /// no store.
    func collectGarbage(_ command: CollectGarbageCommand) throws -> Int32 {
        let display = progressDisplay(label: "gc")
        let (limits, report) = try withStore(creating: false) { store in
            defer { display?.finish() }
            let limits = command.limits(over: store.limits)
            let report = try store.collectGarbage(
                limits: limits, gracePeriod: command.grace, dryRun: command.dryRun,
                progress: display?.callback)
            return (limits, report)
        }
        if command.json {
            try output.writeJSON(report)
        } else {
            let grace = command.grace ?? BlobStore.Configuration().gracePeriod
            try output.write(Self.summary(of: report, limits: limits, grace: grace))
        }
        return ExitCode.success
    }

    /// The human-readable report; a dry run says so first.
    static func summary(of report: GarbageCollectionReport, limits: EvictionLimits, grace: Duration) -> String {
        let bytes = QuantityFormat.bytes
        let reasons =
            [
                "\(report.expiredEntries) expired", "\(report.agedEntries) idle too long",
                "\(report.leastRecentlyUsedEntries) least recently used",
            ]
            + (report.chosenByPolicyEntries > 0
                ? ["\(report.chosenByPolicyEntries) chosen by \(limits.policy.rawValue)"] : [])
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
            "policy \(limits.policy.rawValue)",
        ].joined(separator: ", ")
    }
}
