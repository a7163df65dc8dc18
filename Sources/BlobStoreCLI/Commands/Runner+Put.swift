import BlobStore
import Foundation

extension Runner {
    /// `put <key> [<file>]`: streams the file (or standard input, for no file or `-`) into the
    /// store and prints the digest.
    func put(key: String, file: String?) throws -> Int32 {
        let digest: SHA256Digest
        if let file, file != "-" {
            try openForReading(file).close()  // a clear error before any store is created
            digest = try withStore { store in
                try store.put(contentsOf: URL(fileURLWithPath: file), for: StoreKey(key))
            }
        } else {
            digest = try withStore { store in
                try store.put(readingFrom: standardInput, for: StoreKey(key))
            }
        }
        try output.write(digest.hex + "\n")
        return ExitCode.success
    }
}
