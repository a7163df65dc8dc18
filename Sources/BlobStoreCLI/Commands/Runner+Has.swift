import BlobStore
import BlobStoreRemote

extension Runner {
    /// `has <key>`: exit 0 if the key is stored, locally or in the remote (if any), 1 if not;
    /// prints nothing.
    func has(key: String) throws -> Int32 {
        let remote = try remoteBackend()
        let found = try withStore(creating: remote != nil, miss: "No value for key '\(key)'") { store in
            guard let tiered = tiered(store, remote) else { return try store.contains(StoreKey(key)) }
            defer { finishRemote(tiered) }
            return try tiered.contains(StoreKey(key))
        }
        return found ? ExitCode.success : ExitCode.keyNotFound
    }
}
