import BlobStore

/// `blobstore compact [--json]`: its description, its value, and its run below.
struct CompactCommand: SubcommandValue {
    /// `--json`: print the report as a JSON object.
    var json = false

    static let spec = CommandSpec<CompactCommand>(
        .compact,
        abstract: "Rewrite the journal as a manifest of the live entries.",
        discussion: "Writes the live entries to a new manifest and starts an empty journal (the next "
            + "generation), replacing the old manifest and journal, so overwritten and removed keys "
            + "no longer take space; the blob files they left without a key are deleted too. Other "
            + "processes switch to the new generation on their next operation. The "
            + "library also compacts by itself after a write once the journal is 4 MiB or more and "
            + "at least half of it describes dead state.",
        options: [.flag("--json", help: "Print the report as a JSON object.", \.json)])

    func run(in runner: Runner) throws -> Int32 { try runner.compact(self) }
}

extension Runner {
    /// `compact [--json]`: rewrites the journal as a manifest of the live entries. Creates no
    /// store.
    func compact(_ command: CompactCommand) throws -> Int32 {
        let report = try withStore(creating: false) { store in try store.compact() }
        if command.json {
            try output.writeJSON(report)
        } else {
            try output.write(Self.summary(of: report))
        }
        return ExitCode.success
    }

    /// The human-readable compaction report.
    static func summary(of report: CompactionReport) -> String {
        let bytes = QuantityFormat.bytes
        return rows([
            ("generation", "\(report.generationBefore) -> \(report.generationAfter)"),
            ("entries", "\(report.entries)"),
            ("manifest", bytes(report.manifestBytes)),
            ("replaced", "\(bytes(report.oldManifestBytes)) manifest, \(bytes(report.oldJournalBytes)) journal"),
            ("blobs deleted", "\(report.blobsDeleted), \(bytes(report.blobBytesDeleted))"),
            ("time", QuantityFormat.duration(seconds: report.seconds)),
        ])
    }
}
