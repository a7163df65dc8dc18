import BlobStore
import Foundation

extension Runner {
    /// `get <key> [-o <file>]`: copies the verified blob to standard output (no `-o`, or `-o -`)
    /// or `file` in 1 MiB pieces, so memory use does not grow with the value.
    func get(key: String, output file: String?) throws -> Int32 {
        try withStore(creating: false, key: key) { store in
            guard let source = try store.fileHandle(for: StoreKey(key)) else {
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
}
