import Foundation

// MARK: - Reading values

extension BlobStore {
    /// The value stored under `key`, or `nil` when there is none, it expired, or its blob is
    /// missing or damaged (such an entry is removed: a miss, never wrong bytes).
    ///
    /// Records an access for eviction. Verifies the digest unless
    /// ``Configuration/verifyReads`` is off.
    public func value(for key: StoreKey) throws -> Data? {
        guard let entry = try lookup(key) else { return nil }
        switch try content.read(entry.digest, expectedSize: entry.size, verify: configuration.verifyReads) {
        case .found(let data):
            recordHit(key, verified: configuration.verifyReads ? entry.digest : nil)
            return data
        case .missing:
            try repair(entry.digest, quarantine: false)
            return nil
        case .corrupt:
            try repair(entry.digest, quarantine: true)
            return nil
        }
    }

    /// A read-only handle on the blob holding `key`'s value, positioned at its start, for large
    /// values read without copying; `nil` as for ``value(for:)-5c9av``.
    ///
    /// The blob is verified through this very descriptor (streamed through SHA-256) unless
    /// ``Configuration/verifyReads`` is off, so what the handle reads is what was checked, even
    /// if the key is removed and garbage collected meanwhile. The caller closes the handle.
    public func fileHandle(for key: StoreKey) throws -> FileHandle? {
        try openVerified(key)?.handle
    }

    /// A file URL of the read-only blob holding `key`'s value, verified like
    /// ``fileHandle(for:)-4ol5e``; `nil` as for ``value(for:)-5c9av``.
    ///
    /// Prefer ``fileHandle(for:)-4ol5e``: a name can disappear once the key is removed and garbage is
    /// collected, an open descriptor cannot. Never write to the file.
    public func fileURL(for key: StoreKey) throws -> URL? {
        guard let (digest, handle) = try openVerified(key) else { return nil }
        try? handle.close()
        return URL(fileURLWithPath: layout.blobPath(digest))
    }

    /// The bytes whose SHA-256 is `digest`, if the store holds them (under any key), verified.
    public func blob(_ digest: SHA256Digest) throws -> Data? {
        let size = try indexedSize(of: digest)
        switch try content.read(digest, expectedSize: size, verify: true) {
        case .found(let data):
            state.withLock { $0.index.markVerified(digest) }
            return data
        case .missing:
            if size != nil { try repair(digest, quarantine: false) }
            return nil
        case .corrupt:
            try repair(digest, quarantine: true)
            return nil
        }
    }

    /// A read-only handle on the blob whose SHA-256 is `digest`, positioned at its start, if the
    /// store holds it (under any key); `nil` as for ``blob(_:)-90ckb``. For large blobs read
    /// without copying them into memory.
    ///
    /// The blob is always verified, through this very descriptor (streamed through SHA-256), so
    /// what the handle reads is what was checked. The caller closes the handle.
    public func fileHandle(forBlob digest: SHA256Digest) throws -> FileHandle? {
        let size = try indexedSize(of: digest)
        let fd: FileDescriptor
        let info: stat
        switch try content.open(digest) {
        case .missing:
            if size != nil { try repair(digest, quarantine: false) }
            return nil
        case .notAFile:
            try repair(digest, quarantine: true)
            return nil
        case .file(let opened, let status):
            (fd, info) = (opened, status)
        }
        let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
        let expectedSize = size ?? UInt64(info.st_size)
        if case .corrupt = try content.verify(fd, digest: digest, expectedSize: expectedSize) {
            try? handle.close()
            try repair(digest, quarantine: true)
            return nil
        }
        state.withLock { $0.index.markVerified(digest) }
        return handle
    }

    /// Whether `key` has an unexpired entry. Reads no blob and records no access.
    public func contains(_ key: StoreKey) throws -> Bool {
        try info(for: key) != nil
    }

    /// What the store knows about `key`, or `nil` if it has no unexpired entry.
    public func info(for key: StoreKey) throws -> EntryInfo? {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            guard let entry = state.index[key], !entry.isExpired(at: Syscalls.nowMilliseconds()) else { return nil }
            return EntryInfo(key: key, entry: entry)
        }
    }

    /// Every unexpired entry, sorted by key.
    public func entries() throws -> [EntryInfo] {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            let now = Syscalls.nowMilliseconds()
            return state.index.entries.compactMap { key, entry in
                entry.isExpired(at: now) ? nil : EntryInfo(key: key, entry: entry)
            }.sorted { $0.key < $1.key }
        }
    }

    /// Counts and sizes after catching up with other processes.
    public func stats() throws -> StoreStats {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            return StoreStats(
                entries: state.index.count, distinctBlobs: state.index.blobs.count,
                logicalBytes: state.index.logicalBytes, storedBytes: state.index.storedBytes,
                journalBytes: UInt64(state.journalEnd), manifestBytes: UInt64(state.manifestBytes),
                generation: state.generation, hits: state.hits,
                misses: state.misses, repairs: state.repairs, damagedReads: state.damagedReads)
        }
    }

    // MARK: - Internals

    /// Catches up and returns the size the index knows for `digest`, or `nil` when no entry
    /// refers to it.
    private func indexedSize(of digest: SHA256Digest) throws -> UInt64? {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            return state.index.blobs[digest]?.size
        }
    }

    /// Catches up and finds `key`'s live entry; counts a miss when there is none.
    private func lookup(_ key: StoreKey) throws -> IndexEntry? {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            guard let entry = state.index[key], !entry.isExpired(at: Syscalls.nowMilliseconds()) else {
                state.misses += 1
                return nil
            }
            return entry
        }
    }

    /// Opens `key`'s blob and verifies it through the same descriptor; repairs and returns `nil`
    /// when it is missing or damaged.
    private func openVerified(_ key: StoreKey) throws -> (digest: SHA256Digest, handle: FileHandle)? {
        guard let entry = try lookup(key) else { return nil }
        let fd: FileDescriptor
        switch try content.open(entry.digest) {
        case .missing:
            try repair(entry.digest, quarantine: false)
            return nil
        case .notAFile:
            try repair(entry.digest, quarantine: true)
            return nil
        case .file(let opened, _):
            fd = opened
        }
        let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
        if configuration.verifyReads,
            case .corrupt = try content.verify(fd, digest: entry.digest, expectedSize: entry.size)
        {
            try? handle.close()
            try repair(entry.digest, quarantine: true)
            return nil
        }
        recordHit(key, verified: configuration.verifyReads ? entry.digest : nil)
        return (entry.digest, handle)
    }

    /// Counts a hit, notes the access, and remembers that `verified` (the blob just read) passed
    /// its digest check. Never fails: access times are hints (``appendAccessHints(_:)``).
    private func recordHit(_ key: StoreKey, verified: SHA256Digest?) {
        state.withLock { state in
            state.hits += 1
            if let verified { state.index.markVerified(verified) }
            guard !state.isClosed else { return }
            noteAccess(key, at: Syscalls.nowMilliseconds(), &state)
        }
    }

    /// Drops every entry that refers to a blob found missing or damaged, so the next read is a
    /// clean miss. Counts one miss and one damaged read.
    ///
    /// Under the exclusive lock the blob is checked again first: another thread or process may
    /// have put the same content since, linking a sound copy; then nothing is dropped. A damaged
    /// file is moved to `quarantine/`. A read-only store only counts.
    private func repair(_ digest: SHA256Digest, quarantine: Bool) throws {
        try state.withLock { state in
            state.misses += 1
            state.damagedReads += 1
            try checkUsable(state)
            guard state.readOnly == nil else { return }
            try exclusively {
                try prepareAppend(&state)
                guard let size = state.index.blobs[digest]?.size else {
                    if quarantine { try content.quarantine(digest) }
                    return
                }
                if try content.reusableBlob(digest, size: size, verify: true, sync: false) {
                    state.index.markVerified(digest)
                    return
                }
                let keys = state.index.keys(referring: digest)
                try state.append(keys.map { .remove(key: $0, digest: digest) })
                state.repairs += keys.count
                try finishWrite(&state, newBlob: nil)
            }
        }
    }
}
