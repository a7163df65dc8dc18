import BlobStore
import BlobStoreRemote
import Foundation

extension Runner {
    /// `get <key> [-o <file>]`: copies the verified blob to standard output (no `-o`, or `-o -`)
    /// or `file` in 1 MiB pieces, so memory use does not grow with the value. On a local miss,
    /// asks the remote, if any; a verified remote hit is stored locally, then copied (or written
    /// from memory when the local store did not keep it: larger than its capacity).
    func get(key: String, output file: String?) throws -> Int32 {
        let remote = try remoteBackend()
        try withStore(creating: remote != nil, miss: "No value for key '\(key)'") { store in
            var found = try store.fileHandle(for: StoreKey(key))
            if found == nil, let tiered = tiered(store, remote) {
                let fetched = try tiered.value(for: StoreKey(key))
                finishRemote(tiered)
                if let fetched {
                    found = try store.fileHandle(for: StoreKey(key))
                    if found == nil {
                        try copy(fetched, to: file)
                        return
                    }
                }
            }
            guard let source = found else {
                // The library answers nil for a damaged or vanished blob too, and counts it.
                if try store.stats().damagedReads > 0 {
                    throw CommandFailure(
                        ExitCode.dataError,
                        "The value for key '\(key)' is damaged or missing on disk; it was not returned, and the "
                            + "entry was dropped unless the store is read-only.")
                }
                throw keyNotFound(key)
            }
            defer { try? source.close() }
            try copy(source, to: file)
        }
        return ExitCode.success
    }

    /// Writes `data` to `file`, or to standard output for `nil` or `-`.
    private func copy(_ data: Data, to file: String?) throws {
        guard let file, file != "-" else { return try output.write(data) }
        let destination = try openForWriting(file)
        try destination.write(contentsOf: data)
        try destination.close()
    }
}
