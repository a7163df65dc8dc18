import BlobStore

extension Runner {
    /// `compact [--json]`: rewrites the journal as a manifest of the live entries. Creates no
    /// store.
    func compact(json: Bool) throws -> Int32 {
        let report = try withStore(creating: false) { store in try store.compact() }
        if json {
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
