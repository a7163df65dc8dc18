import BlobStore
import BlobStoreRemote

extension Runner {
    /// The remote tier `--remote` or `$BLOBSTORE_REMOTE` names, or `nil` for none (an empty
    /// variable counts as unset).
    ///
    /// - Throws: ``CommandFailure`` (exit 64) for a URL that is not `http://`, `https://` or
    ///   `redis://`, before any store is opened.
    func remoteBackend() throws -> (any RemoteBackend)? {
        let url = options.remote ?? environment["BLOBSTORE_REMOTE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let url else { return nil }
        do {
            return try RemoteURL.backend(url, environment: environment)
        } catch let error as BlobStoreError {
            let source = options.remote == nil ? " (from BLOBSTORE_REMOTE)" : ""
            throw CommandFailure(ExitCode.usage, error.message + source)
        }
    }

    /// `store` with `remote` as its second tier, or `nil` without a remote.
    func tiered(_ store: BlobStore, _ remote: (any RemoteBackend)?) -> TieredStore? {
        remote.map { TieredStore(local: store, remote: $0) }
    }

    /// Adds the command's remote counters to the store's `remote-stats` file and warns on
    /// standard error when the remote failed (the command itself went on locally).
    func finishRemote(_ tiered: TieredStore?) {
        guard let tiered else { return }
        try? tiered.saveStats()
        if let error = tiered.lastError {
            errors.report("Warning: \(error.description) The command went on with the local store only.\n")
        }
        if tiered.stats.verificationFailures > 0 {
            errors.report(
                "Warning: the remote \(tiered.remote.name) returned bytes that do not match their digest; they "
                    + "were rejected.\n")
        }
    }
}
