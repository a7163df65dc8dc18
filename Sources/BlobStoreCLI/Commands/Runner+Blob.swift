import BlobStore
import Foundation

extension Runner {
    /// `blob <digest> [-o <file>]`: copies the verified content with that SHA-256, whatever key
    /// refers to it, to standard output (no `-o`, or `-o -`) or `file`, in 1 MiB pieces.
    func blob(_ digest: SHA256Digest, output file: String?) throws -> Int32 {
        try withStore(creating: false, miss: "No blob with digest \(digest.hex)") { store in
            switch try store.openBlob(digest) {
            case .found(let source):
                defer { try? source.close() }
                try copy(source, to: file)
            case .damaged:
                throw CommandFailure(
                    ExitCode.dataError,
                    "The blob \(digest.hex) is damaged or missing on disk; it was not returned, and it was moved "
                        + "to quarantine/ (with its entries dropped) unless the store is read-only.")
            case .absent:
                throw CommandFailure(ExitCode.keyNotFound, "No blob with digest \(digest.hex).")
            }
        }
        return ExitCode.success
    }
}
