import BlobStore

/// `blobstore clear [--json]`: its description, its value, and its run below.
struct ClearCommand: SubcommandValue {
    /// `--json`: print the count as a JSON object.
    var json = false

    static let spec = CommandSpec<ClearCommand>(
        .clear,
        abstract: "Remove every entry and delete their blobs.",
        discussion: "Removes every key, then compacts the store, which deletes the blob files and the packs "
            + "of small values at once (the newest pack file stays, holding nothing live, for the "
            + "next values). Prints how many entries were removed. The store's recorded limits "
            + "stay. Creates no store.",
        options: [.flag("--json", help: "Print the count as a JSON object.", \.json)])

    func run(in runner: Runner) throws -> Int32 { try runner.clear(self) }
}

extension Runner {
    /// `clear [--json]`: removes every entry and deletes their blobs (``BlobStore/removeAll()``).
    /// Creates no store.
    func clear(_ command: ClearCommand) throws -> Int32 {
        let removed = try withStore(creating: false) { store in try store.removeAll() }
        if command.json {
            try output.writeJSON(["removed": removed])
        } else {
            try output.write("removed \(removed) \(removed == 1 ? "entry" : "entries")\n")
        }
        return ExitCode.success
    }
}
