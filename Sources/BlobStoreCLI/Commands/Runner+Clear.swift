import BlobStore

extension Runner {
    /// `clear [--json]`: removes every entry and deletes their blobs (``BlobStore/removeAll()``).
    /// Creates no store.
    func clear(json: Bool) throws -> Int32 {
        let removed = try withStore(creating: false) { store in try store.removeAll() }
        if json {
            try output.writeJSON(["removed": removed])
        } else {
            try output.write("removed \(removed) \(removed == 1 ? "entry" : "entries")\n")
        }
        return ExitCode.success
    }
}
