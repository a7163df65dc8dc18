import BlobStore
import BlobStoreRemote

extension Runner {
    /// `rm <key> ...`: removes each key, and its record in the remote, if any. Keys missing
    /// locally are named together and exit 1, after the others are removed, as `rm(1)` does.
    func remove(keys: [String]) throws -> Int32 {
        let remote = try remoteBackend()
        let missing = try withStore(creating: false, miss: Self.noValue(keys)) { store in
            let tiered = tiered(store, remote)
            defer { finishRemote(tiered) }
            return try keys.filter { key in
                let removed = try tiered?.remove(StoreKey(key)) ?? store.remove(StoreKey(key))
                return !removed
            }
        }
        guard missing.isEmpty else { throw keysNotFound(missing) }
        return ExitCode.success
    }
}
