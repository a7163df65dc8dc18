import BlobStore
import Foundation

/// `blobstore journal [--json]`: its description, its value, and its run below.
struct JournalCommand: SubcommandValue {
    /// `--json`: print one JSON object per line.
    var json = false

    static let spec = CommandSpec<JournalCommand>(
        .journal,
        abstract: "Print the journal's records and the manifest's entries, with the damage found.",
        discussion: "Reads the current generation's journal and manifest as they are on disk, without the "
            + "store's lock and changing nothing, and prints each file's header, every journal record "
            + "(its offset, length, type and fields), every manifest entry, and how each file ends: "
            + "whole, in a torn tail (an interrupted write, which opening the store truncates) or at "
            + "damage (what opening the store drops). With --json, one JSON object per line. Exits 65 "
            + "when it finds damage.",
        options: [
            .flag("--json", help: "Print one JSON object per line: headers, records, entries and endings.", \.json)
        ])

    func run(in runner: Runner) throws -> Int32 { try runner.journal(self) }
}

extension Runner {
    /// `journal [--json]`: prints every record of the current journal, then every entry of the
    /// manifest, each file's header and how it ends, as text or as JSON lines (``DumpText``,
    /// ``DumpJSON``). Reads the files without the store's lock and changes nothing
    /// (``BlobStore/StoreDump``). Exits 65 when the journal or the manifest is damaged or
    /// cannot be read; a torn tail is not damage.
    func journal(_ command: JournalCommand) throws -> Int32 {
        let json = command.json
        let (path, variable) = try storeDirectory()
        let dump: StoreDump
        do {
            dump = try StoreDump(storeAt: path)
        } catch let error as BlobStoreError where error.code == .notFound {
            throw CommandFailure(ExitCode.noStore, Self.noStore(at: error.path ?? path, variable: variable, after: nil))
        }
        var lines = LineBuffer(output)
        lines.append(
            json
                ? DumpJSON.header("journal", dump.journal, generation: dump.generation)
                : DumpText.header("journal", dump.journal, generation: dump.generation))
        var records = 0
        let ending = dump.forEachRecord { record in
            records += 1
            lines.append(json ? DumpJSON.record(record) : DumpText.record(record))
        }
        lines.append(
            json ? DumpJSON.journalEnd(ending, records: records) : DumpText.journalEnd(ending, records: records))

        var damage: String?
        if let manifest = dump.manifest {
            lines.append(
                json
                    ? DumpJSON.header("manifest", manifest, generation: dump.generation)
                    : DumpText.header("manifest", manifest))
            var entries = 0
            damage = dump.forEachManifestEntry { entry in
                entries += 1
                lines.append(json ? DumpJSON.entry(entry) : DumpText.entry(entry))
            }
            lines.append(
                json
                    ? DumpJSON.manifestEnd(damage: damage, entries: entries)
                    : DumpText.manifestEnd(damage: damage, entries: entries))
        } else if !json {
            lines.append("manifest: none (a generation has one once it was compacted)\n")
        }
        try lines.flush()

        var problems: [String] = []
        switch ending {
        case .damaged(let offset, _, let reason):
            problems.append("\(dump.journal.path) is damaged at offset \(offset) (\(reason)).")
        case .unreadable(let reason):
            problems.append("\(dump.journal.path) cannot be read: \(reason).")
        case .clean, .tornTail:
            break
        }
        if let damage, let manifest = dump.manifest { problems.append("\(manifest.path) is damaged: \(damage).") }
        guard problems.isEmpty else {
            errors.report(
                "Error: " + problems.joined(separator: " ")
                    + " Opening the store repairs it, keeping what can be read.\n")
            return ExitCode.dataError
        }
        return ExitCode.success
    }
}

/// Output gathered in pieces of about 64 KiB, for callbacks that cannot throw: the first write
/// error is kept and thrown by ``flush()``, and nothing more is written after it.
private struct LineBuffer {
    let output: Output
    private var pending = ""
    private var failure: (any Error)?

    init(_ output: Output) { self.output = output }

    mutating func append(_ text: String) {
        pending += text
        if pending.utf8.count >= 64 << 10 { write() }
    }

    /// Writes what is pending, then throws the first write error, if any.
    mutating func flush() throws {
        write()
        if let failure { throw failure }
    }

    private mutating func write() {
        defer { pending = "" }
        guard failure == nil else { return }
        do {
            try output.write(pending)
        } catch {
            failure = error
        }
    }
}
