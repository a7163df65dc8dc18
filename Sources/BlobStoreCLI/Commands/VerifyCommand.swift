import BlobStore

/// `blobstore verify [--repair] [--json]`: its description, its value, and its run below.
struct VerifyCommand: SubcommandValue {
    /// `--repair`: quarantine corrupt blobs and stray files, drop the entries they leave broken.
    var repair = false
    /// `--json`: print the report as a JSON object.
    var json = false

    static let spec = CommandSpec<VerifyCommand>(
        .verify,
        abstract: "Check every blob against its digest and the store's files against its index.",
        discussion: "Rehashes every blob file, checks that every entry's blob exists and that nothing else "
            + "lies in the store, then reports each step, corrupt and missing blobs with the keys "
            + "that refer to them, stray files, and unreferenced blobs (garbage that 'blobstore gc' "
            + "deletes, not damage). Without --repair nothing is changed and the command exits 65 "
            + "when anything is damaged or out of place. With --repair it moves corrupt blobs and "
            + "stray files to quarantine/, drops the entries whose blob is corrupt or missing, and "
            + "exits 0. Progress is shown on standard error when it is a terminal.",
        options: [
            .flag(
                "--repair",
                help: "Move corrupt blobs and stray files to quarantine/ and drop the entries whose blob "
                    + "is corrupt or missing.", \.repair),
            .flag("--json", help: "Print the report as a JSON object.", \.json),
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.verify(self) }
}

extension Runner {
    /// `verify [--repair] [--json]`: checks every blob and file of the store and reports each
    /// step and every problem. Without `--repair`, damage exits 65. Creates no store.
    func verify(_ command: VerifyCommand) throws -> Int32 {
        let (repair, json) = (command.repair, command.json)
        let display = progressDisplay(label: "verify")
        let report = try withStore(creating: false) { store in
            defer { display?.finish() }
            return try store.verify(repair: repair, progress: display?.callback)
        }
        if json {
            try output.writeJSON(report)
        } else {
            try output.write(Self.summary(of: report, repaired: repair))
        }
        guard repair || report.isClean else {
            var message = "Error: verify found \(Self.problems(in: report).joined(separator: ", "))."
            if !report.corruptBlobs.isEmpty || !report.missingBlobs.isEmpty || !report.strayFiles.isEmpty {
                message +=
                    " Run 'blobstore verify --repair' to move damaged blobs and stray files to quarantine/ and "
                    + "drop the entries that refer to damaged or missing blobs."
            }
            if !report.recovery.isClean {
                message +=
                    " Opening the store already repaired its index: the entries recorded after the damage are "
                    + "lost, and the damaged bytes are kept in quarantine/."
            }
            errors.report(message + "\n")
            return ExitCode.dataError
        }
        return ExitCode.success
    }

    /// The human-readable report: a table of the steps, then the findings, each problem with
    /// its digest or path and the keys concerned, then what a repair did.
    static func summary(of report: VerifyReport, repaired: Bool) -> String {
        let bytes = QuantityFormat.bytes
        var text = columns(["step", "items", "bytes", "time"])
        for step in report.steps {
            text += columns([
                step.name, "\(step.count)", bytes(step.bytes), QuantityFormat.duration(seconds: step.seconds),
            ])
        }
        text += "\n"
        text += rows([
            ("entries", "\(report.entries) (\(count(report.referencedBlobs, "distinct blob", "distinct blobs")))"),
            ("blobs checked", "\(report.blobsChecked), \(bytes(report.bytesChecked))"),
            ("corrupt blobs", "\(report.corruptBlobs.count)"),
        ])
        for blob in report.corruptBlobs {
            text += "  \(blob.digest.hex)  \(blob.path)  (\(blob.reason))\n"
            text += blob.keys.map { "    key '\($0)'\n" }.joined()
        }
        text += rows([("missing blobs", "\(report.missingBlobs.count)")])
        for blob in report.missingBlobs {
            text += "  \(blob.digest.hex)\n"
            text += blob.keys.map { "    key '\($0)'\n" }.joined()
        }
        text += rows([("stray files", "\(report.strayFiles.count)")])
        text += report.strayFiles.map { "  \($0)\n" }.joined()
        var findings: [(name: String, value: String)] = [
            (
                "unreferenced",
                "\(count(report.unreferencedBlobs, "blob", "blobs")), \(bytes(report.unreferencedBytes)) "
                    + "(garbage, not damage: 'blobstore gc' deletes it)"
            ),
            ("journal", journalState(report.recovery)),
        ]
        if repaired {
            findings.append(
                (
                    "repair",
                    "\(count(report.quarantinedBlobs, "blob", "blobs")) and "
                        + "\(count(report.quarantinedStrayFiles, "stray file", "stray files")) moved to quarantine/, "
                        + "\(count(report.droppedEntries, "entry", "entries")) dropped"
                ))
        }
        findings.append(("result", report.isClean ? "clean" : repaired ? "repaired" : "damaged"))
        findings.append(("time", QuantityFormat.duration(seconds: report.seconds)))
        return text + rows(findings)
    }

    /// What opening the store found in its manifest and journal.
    private static func journalState(_ recovery: RecoveryReport) -> String {
        if let damage = recovery.manifestDamage {
            return "the manifest was damaged (\(damage)); \(recovery.manifestEntries) entries were read before it"
        }
        if recovery.droppedBytes > 0 {
            return "damaged\(Runner.damageLocation(recovery)); \(recovery.droppedBytes) bytes of records dropped"
                + Runner.savedIn(recovery)
        }
        if recovery.tornTailBytes > 0 {
            return "clean; an interrupted write's \(recovery.tornTailBytes) bytes were truncated"
        }
        return "clean"
    }

    /// The kinds of damage found, counted: `1 corrupt blob`, `2 stray files`.
    static func problems(in report: VerifyReport) -> [String] {
        var problems: [String] = []
        if !report.corruptBlobs.isEmpty {
            problems.append(count(report.corruptBlobs.count, "corrupt blob", "corrupt blobs"))
        }
        if !report.missingBlobs.isEmpty {
            problems.append(count(report.missingBlobs.count, "missing blob", "missing blobs"))
        }
        if !report.strayFiles.isEmpty { problems.append(count(report.strayFiles.count, "stray file", "stray files")) }
        if report.recovery.manifestDamage != nil { problems.append("a damaged manifest") }
        if report.recovery.droppedBytes > 0 { problems.append("a damaged journal") }
        return problems
    }

    /// One row of the steps table: the name left-aligned, the other columns right-aligned.
    private static func columns(_ cells: [String]) -> String {
        let widths = [10, 10, 12, 10]
        var line = cells[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
        for (cell, width) in zip(cells.dropFirst(), widths.dropFirst()) {
            line += String(repeating: " ", count: max(1, width - cell.count)) + cell
        }
        return line + "\n"
    }
}
