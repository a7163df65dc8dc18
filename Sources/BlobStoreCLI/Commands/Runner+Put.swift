import BlobStore
import Foundation

extension Runner {
    /// `put <key> [<file>]`: streams the file (or standard input) into the store and prints the
    /// digest.
    func put(key: String, file: String?) throws -> Int32 {
        let input = try file.map(openForReading) ?? standardInput
        let digest = try withStore { store in
            try store.put(readingFrom: input, for: StoreKey(key))
        }
        try output.write(digest.hex + "\n")
        return ExitCode.success
    }
}
