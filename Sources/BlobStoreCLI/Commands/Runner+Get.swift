import BlobStore
import Foundation

extension Runner {
    /// `get <key> [-o <file>]`: copies the verified blob to standard output or `file` in 1 MiB
    /// pieces, so memory use does not grow with the value.
    func get(key: String, output file: String?) throws -> Int32 {
        try withStore { store in
            guard let source = try store.fileHandle(for: StoreKey(key)) else {
                // The library answers nil for a damaged or vanished blob too, and counts a repair.
                if try store.stats().repairs > 0 {
                    throw CommandFailure(
                        ExitCode.dataError,
                        "The value for key '\(key)' was damaged or missing on disk; the entry has been removed.")
                }
                throw keyNotFound(key)
            }
            defer { try? source.close() }
            let destination = try file.map(openForWriting) ?? output.handle
            while let chunk = try source.read(upToCount: 1 << 20), !chunk.isEmpty {
                try destination.write(contentsOf: chunk)
            }
            if file != nil { try destination.close() }
        }
        return ExitCode.success
    }
}
