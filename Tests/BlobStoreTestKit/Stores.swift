import BlobStore

/// A store configuration that never syncs, for fast tests that do not test durability.
public let fast = BlobStore.Configuration(durability: .none)

/// `fast` with nothing packed: every blob a file of its own, for tests of `blobs/sha256/ab/<digest>`.
public let looseOnly = {
    var configuration = fast
    configuration.packThreshold = 0
    return configuration
}()

/// Opens the store at `path`, runs `body`, closes it.
@discardableResult
public func withStore<R>(
    _ path: String, _ configuration: BlobStore.Configuration = fast, _ body: (BlobStore) throws -> R
) throws -> R {
    let store = try BlobStore(at: path, configuration: configuration)
    defer { try? store.close() }
    return try body(store)
}

extension TemporaryDirectory {
    /// A store at `child(name)`, `fast` unless told otherwise; the caller closes it.
    public func store(_ name: String, _ configuration: BlobStore.Configuration = fast) throws -> BlobStore {
        try BlobStore(at: child(name), configuration: configuration)
    }
}
