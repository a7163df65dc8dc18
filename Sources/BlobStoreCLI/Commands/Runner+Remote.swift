import BlobStore
import BlobStoreRemote

extension Runner {
    /// The remote tier `--remote` or `$BLOBSTORE_REMOTE` names, or `nil` for none (an empty
    /// variable counts as unset), trusting the CAs of `--remote-ca` or `$BLOBSTORE_REMOTE_CA`
    /// for TLS.
    ///
    /// - Throws: ``CommandFailure`` (exit 64) for a URL that is not one of the remote forms, a CA
    ///   file that cannot be read, or `--remote-ca`, `--remote-read-only` or `--remote-only`
    ///   without a remote, before any store is opened.
    func remoteBackend() throws -> (any RemoteBackend)? {
        let url = options.remote ?? nonEmpty("BLOBSTORE_REMOTE")
        guard let url else {
            let given = [
                ("--remote-ca", options.remoteCA != nil), ("--remote-read-only", options.remoteReadOnly),
                ("--remote-only", options.remoteOnly),
            ]
            if let (name, _) = given.first(where: \.1) {
                throw CommandFailure(
                    ExitCode.usage, "The option '\(name)' needs a remote: pass --remote <url> or set BLOBSTORE_REMOTE.")
            }
            return nil
        }
        let caFile = options.remoteCA ?? nonEmpty("BLOBSTORE_REMOTE_CA")
        do {
            return try RemoteURL.backend(url, tls: RemoteTLS(caFile: caFile), environment: environment)
        } catch let error as BlobStoreError {
            var source = ""
            if error.path != nil, error.path == caFile {
                source = options.remoteCA == nil ? " (from BLOBSTORE_REMOTE_CA)" : ""
            } else if options.remote == nil {
                source = " (from BLOBSTORE_REMOTE)"
            }
            throw CommandFailure(ExitCode.usage, error.message + source)
        }
    }

    /// `store` with `remote` as its second tier, read-only or remote-only as the options say, or
    /// `nil` without a remote.
    func tiered(_ store: BlobStore, _ remote: (any RemoteBackend)?) -> TieredStore? {
        let configuration = RemoteConfiguration(readOnly: options.remoteReadOnly, remoteOnly: options.remoteOnly)
        return remote.map { TieredStore(local: store, remote: $0, configuration: configuration) }
    }

    /// Adds the command's remote counters to the store's `remote-stats` file and warns on
    /// standard error when the remote failed (the command itself went on locally).
    func finishRemote(_ tiered: TieredStore?) {
        guard let tiered else { return }
        try? tiered.saveStats()
        if let error = tiered.lastError {
            let goingOn =
                options.remoteOnly
                ? "With --remote-only, nothing was stored or read locally instead."
                : "The command went on with the local store only."
            errors.report("Warning: \(error.description) \(goingOn)\n")
        }
        if tiered.stats.verificationFailures > 0 {
            errors.report(
                "Warning: the remote \(tiered.remote.name) returned bytes that do not match their digest; they "
                    + "were rejected.\n")
        }
    }

    /// The variable `name`, unless it is unset or empty.
    private func nonEmpty(_ name: String) -> String? {
        environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }
}
