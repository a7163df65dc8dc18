import BlobStore
import BlobStoreRemote
import Foundation

extension Runner {
    /// `put <key> [<file>]`: streams the file (or standard input, for no file or `-`) into the
    /// store and prints the digest. With a remote, then uploads it (the blob only if the remote
    /// lacks it).
    func put(key: String, file: String?) throws -> Int32 {
        let digest: SHA256Digest
        let remote = try remoteBackend()
        if let file, file != "-" {
            try openForReading(file).close()  // a clear error before any store is created
            digest = try withStore { store in
                let digest = try store.put(contentsOf: URL(fileURLWithPath: file), for: StoreKey(key))
                try upload(key, store, remote)
                return digest
            }
        } else {
            digest = try withStore { store in
                let digest = try store.put(readingFrom: standardInput, for: StoreKey(key))
                try upload(key, store, remote)
                return digest
            }
        }
        try output.write(digest.hex + "\n")
        return ExitCode.success
    }

    /// Uploads `key`'s entry to `remote`, if any.
    private func upload(_ key: String, _ store: BlobStore, _ remote: (any RemoteBackend)?) throws {
        guard let tiered = tiered(store, remote) else { return }
        try tiered.upload(StoreKey(key))
        finishRemote(tiered)
    }
}
