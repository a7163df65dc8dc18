import BlobStore

extension Runner {
    /// `rm <key>`: removes the key; a missing key is reported and exits 1.
    func remove(key: String) throws -> Int32 {
        let removed = try withStore(creating: false, key: key) { store in try store.remove(StoreKey(key)) }
        guard removed else { throw keyNotFound(key) }
        return ExitCode.success
    }
}
