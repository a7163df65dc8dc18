import BlobStore
import BlobStoreRemote

extension Runner {
    /// `rm <key> ...`: removes each key, and its record in the remote, if any. Keys missing
    /// locally (with `--remote-only`: without a record in the remote) are named together and exit
    /// 1, after the others are removed, as `rm(1)` does.
    func remove(keys: [String]) throws -> Int32 {
        let remote = try remoteBackend()
        let remoteOnly = options.remoteOnly && remote != nil
        let missing = try withStore(creating: remoteOnly, miss: Self.noValue(keys)) { store in
            let tiered = tiered(store, remote)
            defer { finishRemote(tiered) }
            return try keys.filter { key in
                guard let tiered else { return try !store.remove(StoreKey(key)) }
                // Remote-only: the remote's DEL does not say whether it held the key; its record does.
                let held = remoteOnly ? try tiered.info(for: StoreKey(key)) != nil : false
                let removed = try tiered.remove(StoreKey(key))
                return !(removed || held)
            }
        }
        guard missing.isEmpty else { throw keysNotFound(missing) }
        return ExitCode.success
    }
}
