import Foundation

// MARK: - Reading values

extension BlobStore {
    /// `key`'s value with its digest, size, times and metadata, in one read; `nil` when there is
    /// none, it expired, or its blob is missing or damaged (such an entry is removed: a miss,
    /// never wrong bytes). The value is the one the information describes, whatever other
    /// threads or processes write meanwhile.
    ///
    /// Records an access for eviction. Verifies the digest unless
    /// ``Configuration/verifyReads`` is off.
    public func entry(for key: StoreKey) throws -> StoredEntry? {
        try readEntry(for: key).value
    }

    /// ``entry(for:)``, saying whether a miss found no entry or a damaged copy.
    public func readEntry(for key: StoreKey) throws -> ReadOutcome<StoredEntry> {
        guard let found = try lookup(key) else { return .absent }
        return try read(key, found)
    }

    /// The rest of ``readEntry(for:)`` once ``lookup(_:)`` found `key`'s entry: the value read
    /// (a packed or chunked one is located in `found`) and verified.
    private func read(_ key: StoreKey, _ found: Found) throws -> ReadOutcome<StoredEntry> {
        let (entry, located, verified) = found
        return try keepingHit {
            let result =
                try located?.read(entry.digest, verify: configuration.verifyReads, content: content)
                ?? content.read(entry.digest, expectedSize: entry.size, verify: configuration.verifyReads)
            return try settle(result, digest: entry.digest).map { data in
                finishHit(entry.digest, wasVerified: verified)
                return StoredEntry(info: EntryInfo(key: key, entry: entry), value: data, tier: .disk)
            }
        }
    }

    /// The bytes of `range` of `key`'s value (cut to the value's end), verified; `nil` as for
    /// ``BlobStorage/value(for:)-4hc2q``. Records an access as a read of the whole value does.
    ///
    /// A chunked value (docs/design.md, "Chunked values") reads and verifies only the chunks
    /// that hold the range: a few kilobytes of a gigabyte cost one chunk's copy and hash. A value
    /// stored whole is verified whole first (unless ``Configuration/verifyReads`` is off), as
    /// ``fileHandle(for:)-4ol5e`` verifies it, then the range is read.
    public func value(for key: StoreKey, in range: Range<Int>) throws -> Data? {
        try readRange(range, of: key).value
    }

    /// ``value(for:in:)-9qrnw``, saying whether a miss found no entry or a damaged copy.
    public func readRange(_ range: Range<Int>, of key: StoreKey) throws -> ReadOutcome<Data> {
        precondition(range.lowerBound >= 0, "a range of the value's bytes")
        guard let found = try lookup(key, covering: range) else { return .absent }
        let wanted = range.clamped(to: 0..<Int(clamping: found.entry.size))
        guard case .chunks(let chunked)? = found.located else {
            // A value stored whole: verified whole, then cut.
            guard found.located == nil else {
                return try read(key, found).map { Data($0.value[wanted]) }
            }
            guard case .found(let opened) = try open(found) else { return .damaged }
            return try verifiedHandle(opened).map { verified in
                defer { try? verified.handle.close() }
                try verified.handle.seek(toOffset: UInt64(wanted.lowerBound))
                return try verified.handle.read(upToCount: wanted.count) ?? Data()
            }
        }
        return try keepingHit {
            let result = chunked.read(bytes: wanted, verify: configuration.verifyReads, content: content)
            return try settle(result, digest: found.entry.digest).map { data in
                // Only some chunks were checked: the blob is not marked verified.
                finishHit(nil, wasVerified: found.verified)
                return data
            }
        }
    }

    /// A read-only handle on the blob holding `key`'s value, positioned at its start, for large
    /// values read without copying; `nil` as for ``BlobStorage/value(for:)-4hc2q``.
    ///
    /// The blob is verified through this very descriptor (streamed through SHA-256) unless
    /// ``Configuration/verifyReads`` is off, so what the handle reads is what was checked, even
    /// if the key is removed and garbage collected meanwhile. A packed value's handle is on a copy
    /// in memory, a chunked value's on an unnamed copy in the store's `tmp/`, written a window of
    /// chunks at a time, each checked first. The caller closes the handle.
    public func fileHandle(for key: StoreKey) throws -> FileHandle? {
        try openValue(for: key).value
    }

    /// `key`'s entry with its value (``entry(for:)``), or, when the value is larger than
    /// `maxBytes`, its information and a handle on it, verified as ``fileHandle(for:)-4ol5e``
    /// verifies it, or, for a chunked value, its chunks opened to be read and verified a range
    /// at a time (``EntryRead/chunked(_:_:)``); `nil` as for ``entry(for:)``.
    public func entry(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryRead? {
        try entryVerifyingNow(for: key, readingUpTo: maxBytes)
    }

    /// ``entry(for:readingUpTo:)`` for a reader that verifies a large value where it chooses: a
    /// value stored whole in its own file and larger than `maxBytes` comes back opened, its
    /// verification still to do (``UnverifiedBlob/verified()``), so that an event loop can have
    /// another thread hash it. Anything else is read as ``entry(for:readingUpTo:)`` reads it.
    package func entryOpening(for key: StoreKey, readingUpTo maxBytes: Int) throws -> EntryOpening? {
        // Of a chunked value, the chunks of its first `maxBytes + 1` bytes are located: all of
        // one no larger than `maxBytes`, read here; of a larger one, which `ChunkedValue`
        // locates a range at a time, a few that are not used.
        let limit = max(0, maxBytes)
        guard let found = try lookup(key, covering: limit < Int.max ? 0..<(limit + 1) : nil) else { return nil }
        let isPacked = if case .needle = found.located { true } else { false }
        if isPacked || found.entry.size <= UInt64(limit) {
            return try read(key, found).value.map { .read(.value($0)) }
        }
        if case .chunks(let chunked) = found.located {
            return try keepingHit {
                // A chunk of its first bytes missing is damage, found now rather than by a read.
                guard !chunked.isMissingAChunk else {
                    try repair(found.entry.digest, quarantine: false)
                    return .damaged
                }
                // Checked as it is read: the blob is not marked verified.
                finishHit(nil, wasVerified: found.verified)
                return .found(
                    .read(.chunked(EntryInfo(key: key, entry: found.entry), ChunkedValue(chunked.recipe, in: self))))
            }.value
        }
        guard case .found(let opened) = try open(found) else { return nil }
        let info = EntryInfo(key: key, entry: opened.entry)
        guard case .file(let fd) = opened.value else {
            return try verifiedHandle(opened).value.map { .read(.opened(info, $0.handle)) }
        }
        return .unverified(
            info, UnverifiedBlob(store: self, entry: opened.entry, descriptor: fd, wasVerified: opened.verified))
    }

    /// Writes `key`'s value to `destination` from its current offset, verified as
    /// ``fileHandle(for:)-4ol5e`` verifies it before the first byte is written, and returns the
    /// entry's information; `nil`, with nothing written, as for ``BlobStorage/value(for:)-4hc2q``.
    /// A loose value is copied 1 MiB at a time: memory stays flat whatever its size.
    public func writeValue(for key: StoreKey, to destination: FileHandle) throws -> EntryInfo? {
        guard let (entry, handle, packed, _) = try openVerified(key).value else { return nil }
        defer { try? handle.close() }
        if let packed {
            try destination.write(contentsOf: packed)
        } else {
            try content.copy(
                FileDescriptor(rawValue: handle.fileDescriptor, path: layout.blobPath(entry.digest)),
                to: FileDescriptor(rawValue: destination.fileDescriptor, path: "the destination"))
        }
        return EntryInfo(key: key, entry: entry)
    }

    /// ``fileHandle(for:)-4ol5e``, saying whether a miss found no entry or a damaged copy. The
    /// caller closes a handle it is given.
    public func openValue(for key: StoreKey) throws -> ReadOutcome<FileHandle> {
        try openVerified(key).map(\.handle)
    }

    /// A file URL of the read-only blob holding `key`'s value, verified like
    /// ``fileHandle(for:)-4ol5e``; `nil` as for ``BlobStorage/value(for:)-4hc2q``.
    ///
    /// Prefer ``fileHandle(for:)-4ol5e``: a name can disappear once the key is removed and garbage is
    /// collected, an open descriptor cannot. Never write to the file.
    ///
    /// A packed value (smaller than ``Configuration/packThreshold``) or a chunked one
    /// (``Configuration/chunkThreshold``) has no file of its own: a loose copy is written for it,
    /// which garbage collection deletes once it is older than the grace period. In a store open
    /// for reading only, such a value throws ``BlobStoreError/Code/permissionDenied``; use
    /// ``fileHandle(for:)-4ol5e`` there.
    public func fileURL(for key: StoreKey) throws -> URL? {
        guard let (entry, handle, packed, isBlobFile) = try openVerified(key).value else { return nil }
        let digest = entry.digest
        defer { try? handle.close() }
        if let packed {
            try materialize(digest, size: entry.size) {
                try packed.withUnsafeBytes { try content.writeTemporary($0, digest: digest) }
            }
        } else if !isBlobFile {
            let copy = FileDescriptor(rawValue: handle.fileDescriptor, path: "a verified copy")
            try materialize(digest, size: entry.size) { try content.writeTemporary(streamingFrom: copy) }
        }
        return URL(fileURLWithPath: layout.blobPath(digest))
    }

    /// The bytes whose SHA-256 is `digest`, if the store holds them (under any key), verified.
    public func blob(_ digest: SHA256Digest) throws -> Data? {
        let (size, located) = try indexedBlob(digest)
        let result =
            try located?.read(digest, verify: true, content: content)
            ?? content.read(digest, expectedSize: size, verify: true)
        guard let data = try settle(result, digest: digest, repairingMissing: size != nil).value else { return nil }
        state.withLock { $0.index.markVerified(digest) }
        return data
    }

    /// A read-only handle on the blob whose SHA-256 is `digest`, positioned at its start, if the
    /// store holds it (under any key); `nil` as for ``blob(_:)-90ckb``. For large blobs read
    /// without copying them into memory.
    ///
    /// The blob is always verified, through this very descriptor (streamed through SHA-256), so
    /// what the handle reads is what was checked. The caller closes the handle.
    public func fileHandle(forBlob digest: SHA256Digest) throws -> FileHandle? {
        try openBlob(digest).value
    }

    /// ``fileHandle(forBlob:)-3lign``, saying whether a miss found no such blob or a damaged copy
    /// (one the index names that is missing, or a file that fails its check). The caller closes
    /// a handle it is given.
    public func openBlob(_ digest: SHA256Digest) throws -> ReadOutcome<FileHandle> {
        let (size, located) = try indexedBlob(digest)
        if let located {
            return try settle(located.read(digest, verify: true, content: content), digest: digest).map { data in
                state.withLock { $0.index.markVerified(digest) }
                return try content.unnamedFile(containing: data)
            }
        }
        let fd: FileDescriptor
        let info: stat
        switch try content.open(digest) {
        case .missing:
            guard size != nil else { return .absent }
            try repair(digest, quarantine: false)
            return .damaged
        case .notAFile:
            try repair(digest, quarantine: true)
            return .damaged
        case .file(let opened, let status):
            (fd, info) = (opened, status)
        }
        let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
        let expectedSize = size ?? UInt64(info.st_size)
        if case .corrupt = try content.verify(fd, digest: digest, expectedSize: expectedSize) {
            try? handle.close()
            try repair(digest, quarantine: true)
            return .damaged
        }
        state.withLock { $0.index.markVerified(digest) }
        return .found(handle)
    }

    /// Whether `key` has an unexpired entry. Reads no blob and records no access.
    public func contains(_ key: StoreKey) throws -> Bool {
        try info(for: key) != nil
    }

    /// What the store knows about `key`, or `nil` if it has no unexpired entry.
    public func info(for key: StoreKey) throws -> EntryInfo? {
        try unexpiredEntry(key).map { EntryInfo(key: key, entry: $0) }
    }

    /// Whether `key` has an unexpired entry holding `digest` with `metadata`, or `nil` when it
    /// has none: ``info(for:)`` compared in place, nothing copied out. For a memory tier that
    /// keeps an entry only while it matches the disk.
    package func entry(_ key: StoreKey, holds digest: SHA256Digest, metadata: Data) throws -> Bool? {
        try unexpiredEntry(key).map { $0.holds(digest, metadata: metadata) }
    }

    /// `key`'s unexpired entry, read under the mutex once caught up with other processes.
    private func unexpiredEntry(_ key: StoreKey) throws -> IndexEntry? {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            return state.index.unexpired(key, at: Syscalls.nowMilliseconds())
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
                entries: state.index.count, distinctBlobs: state.index.distinctBlobs,
                logicalBytes: state.index.logicalBytes, storedBytes: state.index.storedBytes,
                journalBytes: UInt64(state.journal.end), manifestBytes: UInt64(state.manifestBytes),
                generation: state.generation, hits: state.hits,
                misses: state.misses, repairs: state.repairs, damagedReads: state.damagedReads,
                allProcesses: usage?.totals)
        }
    }

    /// What the chunked values share, after catching up with other processes: their count, the
    /// distinct chunks they are made of, and the bytes sharing saves. Reads every live recipe
    /// (the manifest's decoded from its blocks), so it takes longer the more chunks the store
    /// holds; ``stats()-6aleh`` does not.
    public func chunkStats() throws -> ChunkStats {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            return state.index.chunkStats()
        }
    }

    // MARK: - Internals

    /// Catches up and returns the size the index knows for `digest` (`nil` when no entry refers
    /// to it) and, for a packed or chunked blob, where its bytes are (not yet read).
    private func indexedBlob(_ digest: SHA256Digest) throws -> (size: UInt64?, located: LocatedValue?) {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            guard let reference = state.index.blob(digest) else { return (nil, nil) }
            let located = try locate(digest, size: reference.size, at: reference.location, &state) {
                $0.index.blob(digest)?.location
            }
            return (reference.size, located)
        }
    }

    /// Catches up and finds `key`'s live entry, counting a miss when there is none, and whether
    /// this process has verified its blob before. For a packed blob, its needle comes too, found
    /// under the mutex and copied out by the caller after it (``PackedRead/read()``): readers
    /// wait for each other only for the index's lookups.
    ///
    /// A found entry's hit is counted and its access noted here, in the same hold of the mutex
    /// (one hold per read, not two): the caller runs the rest of the read in
    /// ``keepingHit(_:)``, which takes the hit back when the read ends without a value, and
    /// reports a value's read with ``finishHit(_:wasVerified:)``. A read without a value leaves
    /// its access noted: an access time is a hint, and a repair drops the entry anyway.
    private func lookup(_ key: StoreKey, covering range: Range<Int>? = nil) throws -> Found? {
        try state.withLock { state in
            try checkUsable(state)
            try state.catchUpIfChanged(layout: layout, changes: changes)
            let now = Syscalls.nowMilliseconds()
            guard let hit = state.index.hit(key, at: now) else {
                state.misses += 1
                usage?.add(.misses)
                return nil
            }
            let entry = hit.entry
            let located = try locate(entry.digest, size: entry.size, at: hit.location, covering: range, &state) {
                state in
                guard let (again, location) = state.index.located(key), again.digest == entry.digest else {
                    return nil
                }
                return location
            }
            state.hits += 1
            if !state.isClosed { queueAccess(key, at: now, &state) }
            return (entry, located, hit.isVerified)
        }
    }

    /// What ``lookup(_:)`` found: the live entry, where a packed or chunked value's bytes are
    /// (not yet read), and whether this process verified the blob before.
    typealias Found = (entry: IndexEntry, located: LocatedValue?, verified: Bool)

    /// What ``openEntry(_:)`` found: the bytes of a packed value (verified unless reads do not
    /// verify), a descriptor on a loose blob, or where a chunked value's chunks are; neither of
    /// the last two verified yet.
    enum OpenedValue {
        case packed(Data)
        case file(FileDescriptor)
        case chunks(ChunkedRead)
    }

    /// Finds `key`'s live entry and opens its value; repairs and returns ``ReadOutcome/damaged``
    /// when the blob is missing, not a file, or (packed) damaged. A found entry's hit stays
    /// counted (``lookup(_:)``): the caller runs what it does next in ``keepingHit(_:)`` and ends
    /// it with ``finishHit(_:wasVerified:)``, `verified` saying whether the blob was verified
    /// before.
    func openEntry(_ key: StoreKey) throws -> ReadOutcome<(entry: IndexEntry, value: OpenedValue, verified: Bool)> {
        guard let found = try lookup(key) else { return .absent }
        return try open(found)
    }

    /// The rest of ``openEntry(_:)`` once ``lookup(_:)`` found the entry.
    private func open(_ found: Found) throws -> ReadOutcome<(entry: IndexEntry, value: OpenedValue, verified: Bool)> {
        let (entry, located, verified) = found
        return try keepingHit {
            if case .chunks(let chunked) = located { return .found((entry, .chunks(chunked), verified)) }
            if let located {
                let checked = located.read(entry.digest, verify: configuration.verifyReads, content: content)
                return try settle(checked, digest: entry.digest).map { (entry, .packed($0), verified) }
            }
            switch try content.open(entry.digest) {
            case .missing:
                try repair(entry.digest, quarantine: false)
                return .damaged
            case .notAFile:
                try repair(entry.digest, quarantine: true)
                return .damaged
            case .file(let fd, _):
                return .found((entry, .file(fd), verified))
            }
        }
    }

    /// Opens `key`'s blob and verifies it through the same descriptor; repairs and returns
    /// ``ReadOutcome/damaged`` when it is missing or damaged. `isBlobFile` says whether the handle
    /// is on the blob's own file in `blobs/`, not a copy.
    private func openVerified(_ key: StoreKey) throws -> ReadOutcome<
        (entry: IndexEntry, handle: FileHandle, packed: Data?, isBlobFile: Bool)
    > {
        switch try openEntry(key) {
        case .absent: return .absent
        case .damaged: return .damaged
        case .found(let opened): return try verifiedHandle(opened)
        }
    }

    /// A handle on what ``openEntry(_:)`` opened, a loose blob verified through its descriptor
    /// (repaired, and ``ReadOutcome/damaged``, when it fails), with the bytes of a packed one, or
    /// an unnamed copy of a chunked one (``verifiedCopy(_:digest:)``).
    private func verifiedHandle(_ opened: (entry: IndexEntry, value: OpenedValue, verified: Bool)) throws
        -> ReadOutcome<(entry: IndexEntry, handle: FileHandle, packed: Data?, isBlobFile: Bool)>
    {
        let entry = opened.entry
        return try keepingHit {
            switch opened.value {
            case .packed(let data):
                let handle = try content.unnamedFile(containing: data)
                finishHit(entry.digest, wasVerified: opened.verified)
                return .found((entry, handle, data, false))
            case .chunks(let chunked):
                return try verifiedCopy(chunked, digest: entry.digest).map { handle in
                    finishHit(entry.digest, wasVerified: opened.verified)
                    return (entry, handle, nil, false)
                }
            case .file(let fd):
                let handle = FileHandle(fileDescriptor: fd.rawValue, closeOnDealloc: true)
                return try checkedFile(entry, handle, wasVerified: opened.verified).map { (entry, $0, nil, true) }
            }
        }
    }

    /// `handle`, on the loose blob of `entry`, once the blob was verified through it (unless
    /// reads do not verify) and its hit ended (``finishHit(_:wasVerified:)``); ``ReadOutcome/damaged``
    /// when it does not hash to its digest: the handle is closed and the blob repaired. Called
    /// in ``keepingHit(_:)``.
    func checkedFile(_ entry: IndexEntry, _ handle: FileHandle, wasVerified: Bool) throws -> ReadOutcome<FileHandle> {
        let fd = FileDescriptor(rawValue: handle.fileDescriptor, path: layout.blobPath(entry.digest))
        if configuration.verifyReads,
            case .corrupt = try content.verify(fd, digest: entry.digest, expectedSize: entry.size)
        {
            try? handle.close()
            try repair(entry.digest, quarantine: true)
            return .damaged
        }
        finishHit(entry.digest, wasVerified: wasVerified)
        return .found(handle)
    }

    /// The bytes a read found; for a blob found missing (when `repairingMissing`: the index
    /// names it) or damaged, the repair runs and the outcome is ``ReadOutcome/damaged``.
    func settle(_ result: ContentStore.ReadResult, digest: SHA256Digest, repairingMissing: Bool = true)
        throws -> ReadOutcome<Data>
    {
        switch result {
        case .found(let data):
            return .found(data)
        case .missing:
            guard repairingMissing else { return .absent }
            try repair(digest, quarantine: false)
            return .damaged
        case .corrupt:
            try repair(digest, quarantine: true)
            return .damaged
        }
    }

    /// Writes a loose copy of a packed or chunked blob, for ``fileURL(for:)-7zi9u``: the
    /// temporary file `writing` writes (from verified bytes), linked under the blob's name (a
    /// sound file already there is kept). The copy is not the blob's location; garbage
    /// collection deletes it after the grace period.
    private func materialize(_ digest: SHA256Digest, size: UInt64, writing: () throws -> TemporaryBlob) throws {
        try state.withLock { try checkWritable($0) }
        if case .file(let fd, _) = try content.open(digest) {
            defer { Syscalls.close(fd) }
            if case .found = try content.verify(fd, digest: digest, expectedSize: size) { return }
        }
        let blob = try writing()
        defer { content.discard(blob) }
        guard blob.digest == digest else {
            throw BlobStoreError(.corrupt, "A copy of \(digest) read back as \(blob.digest); it was not kept.")
        }
        if try content.link(blob) == nil {
            // Something unsound is at the name: set it aside and link again.
            try content.quarantine(digest)
            _ = try content.link(blob)
        }
    }

    /// Ends a hit that ``lookup(_:)`` counted: counts it in the shared usage counters and, when
    /// reads verify and this read checked `digest` (`nil` for a read not checked yet) for the
    /// first time in this process (`wasVerified` false), remembers that the blob passed — the
    /// only case that holds the mutex again.
    func finishHit(_ digest: SHA256Digest?, wasVerified: Bool) {
        usage?.add(.hits)
        guard let digest, configuration.verifyReads, !wasVerified else { return }
        state.withLock { $0.index.markVerified(digest) }
    }

    /// Runs the rest of a read whose hit ``lookup(_:)`` counted, and takes the hit back when
    /// the read ends without a value: the blob found missing or damaged (the repair counts the
    /// miss), or a failure thrown.
    func keepingHit<Value>(_ read: () throws -> ReadOutcome<Value>) throws -> ReadOutcome<Value> {
        let outcome: ReadOutcome<Value>
        do {
            outcome = try read()
        } catch {
            state.withLock { $0.hits -= 1 }
            throw error
        }
        if case .found = outcome { return outcome }
        state.withLock { $0.hits -= 1 }
        return outcome
    }

    /// Drops every entry that refers to a blob found missing or damaged, so the next read is a
    /// clean miss. Counts one miss and one damaged read.
    ///
    /// Under the exclusive lock the blob is checked again first: another thread or process may
    /// have put the same content since, linking a sound copy; then nothing is dropped. A damaged
    /// file is moved to `quarantine/`. A read-only store only counts.
    func repair(_ digest: SHA256Digest, quarantine: Bool) throws {
        usage?.add(.misses)
        let writable = try state.withLock { state -> Bool in
            state.misses += 1
            state.damagedReads += 1
            try checkUsable(state)
            return state.readOnly == nil
        }
        guard writable else { return }
        try writeInSteps {
            guard var reference = state.withLock({ $0.index.blob(digest) }) else {
                if quarantine { try content.quarantine(digest) }
                return
            }
            // Hashed again whatever this process knew: the read just found it unsound.
            reference.isVerified = false
            if try isSound(digest, reference) {
                state.withLock { $0.index.markVerified(digest) }
                return
            }
            try state.withLock { state in
                try checkWritable(state)
                let keys = state.index.keys(referring: digest)
                try state.append(keys.map { .remove(key: $0, digest: digest) })
                state.repairs += keys.count
                try finishWrite(&state, newBlob: nil, deferringJournalSync: true)
            }
        }
    }
}
