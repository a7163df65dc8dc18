import BlobStore
import Foundation

extension Runner {
    /// `blob <digest> [-o <file>]`: copies the verified content with that SHA-256, whatever key
    /// refers to it, to standard output (no `-o`, or `-o -`) or `file`, in 1 MiB pieces.
    func blob(_ digest: SHA256Digest, output file: String?) throws -> Int32 {
        try withStore(creating: false, miss: "No blob with digest \(digest.hex)") { store in
            guard let source = try store.fileHandle(forBlob: digest) else {
                // The library answers nil for a damaged blob too, and counts it.
                if try store.stats().damagedReads > 0 {
                    throw CommandFailure(
                        ExitCode.dataError,
                        "The blob \(digest.hex) is damaged or missing on disk; it was not returned, and it was moved "
                            + "to quarantine/ (with its entries dropped) unless the store is read-only.")
                }
                throw CommandFailure(ExitCode.keyNotFound, "No blob with digest \(digest.hex).")
            }
            defer { try? source.close() }
            try copy(source, to: file)
        }
        return ExitCode.success
    }
}
