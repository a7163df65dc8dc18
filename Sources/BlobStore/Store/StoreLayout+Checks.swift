import Glibc

// MARK: - Directories the store works in are plain directories (docs/design.md, "Hostile files")

extension StoreLayout {
    /// `blobs/sha256/ab/<hex>`, after checking that the shard directory `ab` is not a symbolic
    /// link or another kind of file: `O_NOFOLLOW` guards only the last component of a path, and
    /// `open`, `link`, `rename` and `unlink` follow a link anywhere before it.
    ///
    /// Each shard is checked with `lstat` the first time this process uses it; one found to be a
    /// plain directory is not checked again. A shard that does not exist yet passes (the caller
    /// finds nothing there, or creates it and calls again).
    ///
    /// - Throws: ``BlobStoreError/Code/unsafeLayout`` when the shard is a link or not a directory.
    func checkedBlobPath(_ digest: SHA256Digest) throws -> String {
        let hex = digest.hex
        let shard = shardDirectory(hex)
        if !checkedShards.contains(digest.shard), let info = try Syscalls.lstat(shard) {
            try Self.requirePlainDirectory(
                shard, info,
                remedy: "Verify the store with repair (BlobStore.verify(repair: true)) to move it to quarantine/ "
                    + "(the blobs it held then read as missing), or remove it.")
            checkedShards.insert(digest.shard)
        }
        return shard + "/" + hex
    }

    /// Creates `quarantine/` if it is missing and checks that it is a plain directory, before
    /// anything is moved into it.
    ///
    /// - Returns: The path of `quarantine/`.
    /// - Throws: ``BlobStoreError/Code/unsafeLayout`` when it is a link or not a directory.
    func preparedQuarantine(mode: mode_t) throws -> String {
        if try !Syscalls.mkdir(quarantine, mode: mode) { try checkQuarantine() }
        return quarantine
    }

    /// Checks that `quarantine/`, if it exists, is a plain directory; returns its status, or
    /// `nil` when it does not exist.
    ///
    /// - Throws: ``BlobStoreError/Code/unsafeLayout`` when it is a link or not a directory.
    @discardableResult
    func checkQuarantine() throws -> stat? {
        guard let info = try Syscalls.lstat(quarantine) else { return nil }
        try Self.requirePlainDirectory(
            quarantine, info,
            remedy: "Remove it (if it is a directory elsewhere, look first: it may hold evidence of damage); "
                + "BlobStore creates quarantine/ again when it needs it.")
        return info
    }

    /// Checks that `path`, one of the store's fixed directories (`blobs/`, `blobs/sha256/`,
    /// `tmp/`), is a plain directory when it exists; returns its status, or `nil` when it does
    /// not exist.
    ///
    /// - Throws: ``BlobStoreError/Code/unsafeLayout`` when it is a link or not a directory.
    @discardableResult
    func checkFixedDirectory(_ path: String) throws -> stat? {
        guard let info = try Syscalls.lstat(path) else { return nil }
        try Self.requirePlainDirectory(path, info, remedy: "Remove it; BlobStore recreates the directory.")
        return info
    }

    /// Throws ``BlobStoreError/Code/unsafeLayout`` unless `info` (from `lstat`) is a directory.
    static func requirePlainDirectory(_ path: String, _ info: stat, remedy: String) throws {
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else { return }
        let kind = type == S_IFLNK ? "a symbolic link" : "not a directory"
        throw BlobStoreError(
            .unsafeLayout,
            "\(path) is \(kind), where the store expects a plain directory; the store never follows a link "
                + "inside it. \(remedy)", path: path)
    }
}

// MARK: - Who may write the store (docs/design.md, "Who may write the store")

extension StoreLayout {
    /// Throws ``BlobStoreError/Code/unsafeLayout`` when users other than the owner may write
    /// `path` (the store directory, one of its directories, or a file at its top) beyond what
    /// `allowed` grants: another user could plant links or files in the store, or rewrite its
    /// journal. `allowed` is ``BlobStore/Configuration/directoryMode`` for a directory and
    /// ``BlobStore/Configuration/fileMode`` for a file, so a store shared with a group on purpose
    /// (`0o770` and `0o660`) is accepted.
    static func refuseWritableByOthers(_ path: String, _ info: stat, allowed: mode_t) throws {
        let extra = info.st_mode & (S_IWGRP | S_IWOTH) & ~allowed
        guard extra != 0 else { return }
        let who = extra & S_IWOTH != 0 ? "every user" : "its group"
        let isDirectory = info.st_mode & S_IFMT == S_IFDIR
        let mode = "0" + String(info.st_mode & 0o7777, radix: 8)
        throw BlobStoreError(
            .unsafeLayout,
            "\(path) is writable by \(who) (mode \(mode)), so another user could "
                + (isDirectory ? "plant links or files in the store" : "rewrite it")
                + ". Run 'chmod go-w \(path)' (BlobStore makes its directories 0700 and its files 0600). To share "
                + "a store with a group on purpose, open it with Configuration.directoryMode 0o770 and fileMode 0o660.",
            path: path)
    }
}
