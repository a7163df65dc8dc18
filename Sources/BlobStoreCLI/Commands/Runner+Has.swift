import BlobStore

extension Runner {
    /// `has <key>`: exit 0 if the key is stored, 1 if not; prints nothing.
    func has(key: String) throws -> Int32 {
        let found = try withStore(creating: false, key: key) { store in try store.contains(StoreKey(key)) }
        return found ? ExitCode.success : ExitCode.keyNotFound
    }
}
