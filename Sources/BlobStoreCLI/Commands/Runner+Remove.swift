import BlobStore
import BlobStoreRemote

extension Runner {
    /// `rm <key>`: removes the key, and its record in the remote, if any; a key missing locally is
    /// reported and exits 1.
    func remove(key: String) throws -> Int32 {
        let remote = try remoteBackend()
        let removed = try withStore(creating: false, miss: "No value for key '\(key)'") { store in
            guard let tiered = tiered(store, remote) else { return try store.remove(StoreKey(key)) }
            defer { finishRemote(tiered) }
            return try tiered.remove(StoreKey(key))
        }
        guard removed else { throw keyNotFound(key) }
        return ExitCode.success
    }
}
