import Foundation
import Glibc
import Synchronization

// MARK: - Verify: rehash every blob, check every entry, optionally repair

extension BlobStore {
    /// Checks the whole store: rehashes every blob file, finds entries whose blob is missing,
    /// and finds files that do not belong; with `repair`, sets the damage aside.
    ///
    /// The steps, each timed in ``VerifyReport/steps``:
    /// 1. `"index"`: catches up with the journal and takes a snapshot of the entries.
    /// 2. `"blobs"`: lists `blobs/` (never following a link) and rehashes every blob file with
    ///    SHA-256 on all cores, without holding any lock. A file whose bytes do not hash to its
    ///    name, or whose size differs from its entries', is corrupt. A sound file no entry refers
    ///    to is garbage for `gc`, not damage. Misnamed or misplaced files, links and other file
    ///    types under `blobs/`, and unknown names at the top of the store, are stray.
    /// 3. `"entries"`: an entry whose blob file is gone is missing.
    /// 4. `"repair"` (with `repair` only): under the exclusive lock, each finding is checked
    ///    again first (a put may have replaced a blob since), then corrupt blobs and stray files
    ///    are moved to `quarantine/`, and the entries of corrupt and missing blobs are removed
    ///    with records conditional on the digest, so a key put again since with other content
    ///    stays. Afterwards those keys read as misses, never as wrong bytes.
    ///
    /// Other threads and processes may use the store meanwhile; what they change after step 1
    /// can show up as unreferenced blobs.
    ///
    /// - Parameters:
    ///   - repair: Quarantine corrupt blobs and stray files, and drop the entries whose blob is
    ///     corrupt or missing.
    ///   - progress: Called during step `"blobs"` every 64 files or 64 MiB and once at the end
    ///     (`done == total`), possibly from other threads, but one call at a time and never
    ///     while a lock is held.
    /// - Returns: What was checked, found and repaired.
    /// - Throws: ``BlobStoreError``: `permissionDenied` when `repair` is asked of a read-only
    ///   store (before anything is hashed), `closed`, `poisoned`, or a failed system call.
    public func verify(repair: Bool = false, progress: (@Sendable (MaintenanceProgress) -> Void)? = nil) throws
        -> VerifyReport
    {
        let start = Syscalls.monotonicNanoseconds()
        var clock = start
        var report = VerifyReport()
        let snapshot = try indexSnapshot(checkingWritable: repair)
        report.entries = snapshot.entries
        report.referencedBlobs = snapshot.blobs.count
        report.recovery = snapshot.recovery
        report.steps.append(step("index", count: snapshot.entries, bytes: snapshot.indexBytes, since: &clock))

        let inventory = try content.inventory()
        let checks = try rehash(inventory.blobs, expecting: snapshot.blobs, progress: progress)
        var present: Set<SHA256Digest> = []
        var sound: [SHA256Digest] = []
        for check in checks {
            if case .vanished = check.outcome { continue }
            report.blobsChecked += 1
            report.bytesChecked += check.bytesRead
            // A loose copy of a packed or chunked blob (fileURL(for:)) is not what the entries
            // read: garbage when sound, damage to set aside (but no entry to drop) when not.
            let isCopy = snapshot.blobs[check.file.digest].map { $0.location != nil || $0.isChunked } == true
            switch check.outcome {
            case .sound:
                if !isCopy { present.insert(check.file.digest) }
                if snapshot.blobs[check.file.digest] == nil || isCopy {
                    report.unreferencedBlobs += 1
                    report.unreferencedBytes += check.bytesRead
                } else {
                    sound.append(check.file.digest)
                }
            case .corrupt(let reason):
                if !isCopy { present.insert(check.file.digest) }
                report.corruptBlobs.append(
                    VerifyReport.CorruptBlob(
                        digest: check.file.digest, path: layout.blobPath(check.file.digest), reason: reason,
                        keys: isCopy ? [] : snapshot.keys(of: check.file.digest)))
            case .vanished:
                break
            }
        }
        for (digest, blob) in snapshot.blobs {
            guard let location = blob.location else { continue }
            report.blobsChecked += 1
            switch try checkNeedle(digest, size: blob.size, at: location) {
            case .found:
                report.bytesChecked += blob.size
                present.insert(digest)
                sound.append(digest)
            case .missing:
                break
            case .corrupt(let reason):
                present.insert(digest)
                report.corruptBlobs.append(
                    VerifyReport.CorruptBlob(
                        digest: digest, path: layout.pack(location.pack) + " at \(location.offset)", reason: reason,
                        keys: snapshot.keys(of: digest)))
            }
        }
        report.corruptBlobs.sort { $0.digest < $1.digest }
        report.strayFiles = inventory.strays.sorted().map { layout.root + "/" + $0 }
        // As after a verified read: a put that reuses one of these blobs checks its size only.
        state.withLock { state in
            for digest in sound { state.index.markVerified(digest) }
        }
        report.steps.append(step("blobs", count: report.blobsChecked, bytes: report.bytesChecked, since: &clock))

        var entryBytes: UInt64 = 0
        for (digest, blob) in snapshot.blobs {
            // Sizes come from the journal: wrap rather than trap on an absurd one (as StoreIndex does).
            entryBytes &+= blob.size &* UInt64(blob.keys.count)
            // A chunked value is there when its chunks are: each is checked as a blob of its own.
            if !present.contains(digest) && !blob.isChunked {
                report.missingBlobs.append(VerifyReport.MissingBlob(digest: digest, keys: snapshot.keys(of: digest)))
            }
        }
        report.missingBlobs.sort { $0.digest < $1.digest }
        if !report.missingBlobs.isEmpty {
            // An eviction or GC by another process between the snapshot and the listing is not
            // damage: keep only blobs still referenced after catching up, and still not a
            // regular file (a link squatting on the name is a stray, and the blob is missing).
            let stillMissing = try state.withLock { state in
                try state.catchUp(layout: layout)
                return try report.missingBlobs.filter { missing in
                    guard let reference = state.index.blob(missing.digest) else { return false }
                    if let location = reference.location.packed {
                        // A repack may have moved it since the snapshot.
                        let read = state.packs.read(
                            location, size: reference.size, digest: missing.digest, layout: layout)
                        if case .missing = read { return true }
                        return false
                    }
                    let file = try lstatBlob(missing.digest)
                    return file.map { $0.st_mode & S_IFMT != S_IFREG } != false
                }
            }
            report.missingBlobs = stillMissing
        }
        report.steps.append(step("entries", count: snapshot.entries, bytes: entryBytes, since: &clock))

        if repair {
            let bytes = try repairFindings(&report, strays: inventory.strays, snapshot: snapshot)
            let count = report.quarantinedBlobs + report.droppedEntries + report.quarantinedStrayFiles
            report.steps.append(step("repair", count: count, bytes: bytes, since: &clock))
        }
        report.seconds = Double(Syscalls.monotonicNanoseconds() - start) / 1e9
        return report
    }

    /// `async` ``verify(repair:progress:)``, run off the caller's thread.
    public func verify(repair: Bool = false, progress: (@Sendable (MaintenanceProgress) -> Void)? = nil)
        async throws -> VerifyReport
    {
        try await offload { try self.verify(repair: repair, progress: progress) }
    }

    // MARK: - Index

    /// The entries, grouped by blob, and the chunks of chunked values, as of one catch-up.
    private struct IndexSnapshot {
        struct Blob {
            var size: UInt64
            /// The keys that refer to it, as text, sorted.
            var keys: [String]
            /// Where its needle is, for a packed blob; `nil` for a loose or chunked one.
            var location: PackLocation? = nil
            /// A chunked value: sound when its chunks are.
            var isChunked = false
            /// For a chunk, the chunked values whose recipes name it.
            var values: Set<SHA256Digest> = []
        }

        var entries = 0
        var blobs: [SHA256Digest: Blob] = [:]
        var indexBytes: UInt64 = 0
        var recovery = RecoveryReport()

        /// The keys that read `digest`'s bytes: its own, and a chunk's values' keys, sorted.
        func keys(of digest: SHA256Digest) -> [String] {
            guard let blob = blobs[digest] else { return [] }
            guard !blob.values.isEmpty else { return blob.keys }
            return Set(blob.keys + blob.values.flatMap { blobs[$0]?.keys ?? [] }).sorted()
        }
    }

    private func indexSnapshot(checkingWritable: Bool) throws -> IndexSnapshot {
        try state.withLock { state in
            if checkingWritable { try checkWritable(state) } else { try checkUsable(state) }
            try state.catchUp(layout: layout)
            var snapshot = IndexSnapshot()
            snapshot.entries = state.index.count
            snapshot.indexBytes = UInt64(state.journal.end + state.manifestBytes)
            // Every block of the manifest is read and checked, so its damage is reported.
            state.index.checkManifest()
            snapshot.recovery = state.recoveryReport
            state.index.forEachEntry { key, entry in
                snapshot.blobs[entry.digest, default: IndexSnapshot.Blob(size: entry.size, keys: [])].keys
                    .append(key.string)
            }
            for digest in Array(snapshot.blobs.keys) {
                snapshot.blobs[digest]!.keys.sort()
                let location = state.index.blob(digest)?.location
                snapshot.blobs[digest]!.location = location?.packed
                guard location == .chunked else { continue }
                snapshot.blobs[digest]!.isChunked = true
                for chunk in state.index.recipe(digest)?.chunks ?? [] {
                    snapshot.blobs[chunk.digest, default: IndexSnapshot.Blob(size: UInt64(chunk.length), keys: [])]
                        .values.insert(digest)
                    snapshot.blobs[chunk.digest]!.location = state.index.blob(chunk.digest)?.location.packed
                }
            }
            return snapshot
        }
    }

    // MARK: - Blobs

    /// What rehashing one listed blob file found.
    private struct BlobCheck: Sendable {
        enum Outcome: Sendable {
            case sound
            case corrupt(reason: String)
            /// Gone since the listing (a repair or a collection by another thread or process).
            case vanished
        }

        var file: ContentStore.BlobFile
        var outcome: Outcome
        var bytesRead: UInt64
    }

    /// Shared by the hashing workers: the next file to take, the results, the progress counts.
    private struct HashingState: Sendable {
        var next = 0
        var checks: [BlobCheck] = []
        var done = 0
        var bytes: UInt64 = 0
        /// Counts at the last progress call, and whether a worker is making one now.
        var reportedDone = 0
        var reportedBytes: UInt64 = 0
        var isReporting = false
        var failure: BlobStoreError?
    }

    /// Rehashes `files` on every core (at least two workers), each worker streaming through its
    /// own buffer, and compares sizes with the index's where an entry refers to the blob.
    private func rehash(
        _ files: [ContentStore.BlobFile], expecting blobs: [SHA256Digest: IndexSnapshot.Blob],
        progress: (@Sendable (MaintenanceProgress) -> Void)?
    ) throws -> [BlobCheck] {
        let total = files.count
        let totalBytes = files.reduce(0) { $0 + $1.size }
        let sizes = blobs.mapValues(\.size)
        let shared = Mutex(HashingState())
        let workers = min(max(2, ProcessInfo.processInfo.activeProcessorCount), max(1, total))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentStore.chunkSize, alignment: 16)
            defer { buffer.deallocate() }
            while let index = shared.withLock({ state -> Int? in
                guard state.next < total, state.failure == nil else { return nil }
                defer { state.next += 1 }
                return state.next
            }) {
                let file = files[index]
                let check: BlobCheck
                do {
                    check = try self.check(file, expectedSize: sizes[file.digest], buffer: buffer)
                } catch let error as BlobStoreError {
                    shared.withLock { $0.failure = $0.failure ?? error }
                    return
                } catch {
                    preconditionFailure("rehashing threw \(error), which is not a BlobStoreError")
                }
                let report = shared.withLock { state -> MaintenanceProgress? in
                    state.checks.append(check)
                    state.done += 1
                    state.bytes += check.bytesRead
                    let due =
                        state.done - state.reportedDone >= 64 || state.bytes - state.reportedBytes >= 64 << 20
                        || state.done == total
                    guard due, !state.isReporting, progress != nil else { return nil }
                    state.isReporting = true
                    (state.reportedDone, state.reportedBytes) = (state.done, state.bytes)
                    return MaintenanceProgress(
                        step: .blobs, done: state.done, total: total, bytes: state.bytes, totalBytes: totalBytes)
                }
                if let report, let progress {
                    progress(report)
                    shared.withLock { $0.isReporting = false }
                }
            }
        }
        let (checks, failure, done, bytes, reportedDone) = shared.withLock {
            ($0.checks, $0.failure, $0.done, $0.bytes, $0.reportedDone)
        }
        if let failure { throw failure }
        // The last file's worker may have skipped its call while another worker was reporting.
        if let progress, reportedDone != done || total == 0 {
            progress(
                MaintenanceProgress(step: .blobs, done: done, total: total, bytes: bytes, totalBytes: totalBytes))
        }
        return checks
    }

    /// Rehashes one blob file; `expectedSize` is the index's size when an entry refers to it.
    private func check(
        _ file: ContentStore.BlobFile, expectedSize: UInt64?, buffer: UnsafeMutableRawBufferPointer
    ) throws -> BlobCheck {
        switch try content.rehash(file.digest, buffer: buffer) {
        case .missing:
            return BlobCheck(file: file, outcome: .vanished, bytesRead: 0)
        case .unreadable(let reason):
            return BlobCheck(file: file, outcome: .corrupt(reason: reason), bytesRead: 0)
        case .hashed(let digest, let size):
            let outcome: BlobCheck.Outcome
            if let expectedSize, size != expectedSize {
                outcome = .corrupt(reason: "size \(size), expected \(expectedSize)")
            } else if digest != file.digest {
                outcome = .corrupt(reason: "content does not hash to its name")
            } else {
                outcome = .sound
            }
            return BlobCheck(file: file, outcome: outcome, bytesRead: size)
        }
    }

    // MARK: - Repair

    /// Sets aside what `report` found, checking each finding again under the exclusive lock:
    /// stray files first (a link squatting on a blob's name hides that the blob is missing),
    /// then corrupt blobs, then missing ones. All removals go out in one append.
    ///
    /// - Returns: The bytes of the blobs quarantined.
    private func repairFindings(
        _ report: inout VerifyReport, strays: [String], snapshot: IndexSnapshot
    ) throws -> UInt64 {
        let findings = (corrupt: report.corruptBlobs.map(\.digest), missing: report.missingBlobs.map(\.digest))
        // A damaged chunk drops the entries of every value made of it, as a read of one would.
        let values = { (digest: SHA256Digest) in snapshot.blobs[digest]?.values ?? [] }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentStore.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var quarantinedBytes: UInt64 = 0
        var quarantinedStrays = 0
        var quarantinedBlobs = 0
        var dropped = 0
        try write { state in
            for relative in strays {
                guard let info = try Syscalls.lstat(layout.root + "/" + relative),
                    !content.belongs(relative, type: info.st_mode & S_IFMT)
                else { continue }
                try content.quarantineStray(relative)
                quarantinedStrays += 1
            }
            if strays.contains(where: { $0 == "blobs" || $0 == "blobs/sha256" }) {
                for directory in [layout.blobsRoot, layout.blobsSHA256] {
                    try Syscalls.mkdir(directory, mode: configuration.directoryMode)
                }
            }
            var records: [JournalRecord] = []
            // One pass over the index for every finding, not one per finding.
            let wanted = Set(findings.corrupt + findings.missing).union(
                (findings.corrupt + findings.missing).flatMap(values))
            var keysByDigest: [SHA256Digest: [StoreKey]] = [:]
            for (key, entry) in state.index.entries where wanted.contains(entry.digest) {
                keysByDigest[entry.digest, default: []].append(key)
            }
            func removals(_ digest: SHA256Digest) -> [JournalRecord] {
                ([digest] + values(digest).sorted()).flatMap { target in
                    (keysByDigest[target] ?? []).map { JournalRecord.remove(key: $0, digest: target) }
                }
            }
            /// Sets aside a damaged loose copy of a packed or chunked blob (`fileURL(for:)`).
            func setAsideDamagedCopy(_ digest: SHA256Digest, size: UInt64) throws {
                let copy = try check(ContentStore.BlobFile(digest: digest, size: 0), expectedSize: size, buffer: buffer)
                guard case .corrupt = copy.outcome else { return }
                try content.quarantine(digest)
                quarantinedBlobs += 1
                quarantinedBytes += copy.bytesRead
            }
            for digest in findings.corrupt {
                if let reference = state.index.blob(digest), reference.location == .chunked {
                    // What was found is a loose copy (fileURL): it goes aside, and the entries go
                    // only if a chunk is missing or damaged too (checked here, under the mutex).
                    try setAsideDamagedCopy(digest, size: reference.size)
                    if case .chunks(let read) = locateChunks(digest, size: reference.size, &state),
                        read.check(verify: true, content: content) == nil
                    {
                        continue
                    }
                    records += removals(digest)
                    continue
                }
                if let reference = state.index.blob(digest), let location = reference.location.packed {
                    // A damaged loose copy goes aside; the entries go only if the needle is bad.
                    try setAsideDamagedCopy(digest, size: reference.size)
                    let needle = Self.checked(
                        state.packs.read(location, size: reference.size, digest: digest, layout: layout),
                        digest: digest, verify: true)
                    if case .found = needle { continue }
                    // The pack is never rewritten in place: a copy of the damaged needle is the evidence.
                    if let raw = state.packs.rawNeedle(location, size: reference.size, layout: layout) {
                        let quarantine = try layout.preparedQuarantine(mode: configuration.directoryMode)
                        let name = digest.hex + "-" + String(Syscalls.random64() & 0xffff_ffff, radix: 16)
                        try BlobStore.writeFileAtomically(
                            quarantine + "/" + name, raw, directory: quarantine, mode: configuration.fileMode)
                        quarantinedBlobs += 1
                        quarantinedBytes += UInt64(raw.count)
                    }
                    records += removals(digest)
                    continue
                }
                let expectedSize = state.index.blob(digest)?.size
                let found = try check(
                    ContentStore.BlobFile(digest: digest, size: 0), expectedSize: expectedSize, buffer: buffer)
                switch found.outcome {
                case .sound:
                    continue
                case .vanished where expectedSize == nil:
                    continue
                case .vanished:
                    break
                case .corrupt:
                    try content.quarantine(digest)
                    quarantinedBlobs += 1
                    quarantinedBytes += found.bytesRead
                }
                records += removals(digest)
            }
            for digest in findings.missing {
                if let reference = state.index.blob(digest), let location = reference.location.packed {
                    let needle = state.packs.read(location, size: reference.size, digest: digest, layout: layout)
                    guard case .missing = needle else { continue }
                } else if try lstatBlob(digest) != nil {
                    continue
                }
                records += removals(digest)
            }
            guard !records.isEmpty else { return }
            try state.append(records)
            dropped = records.count
            state.repairs += records.count
            try finishWrite(&state, newBlob: nil)
        }
        report.quarantinedStrayFiles = quarantinedStrays
        report.quarantinedBlobs = quarantinedBlobs
        report.droppedEntries = dropped
        return quarantinedBytes
    }

    // MARK: - Helpers

    /// Reads a packed blob's needle (copied out under the mutex) and rehashes it outside.
    private func checkNeedle(_ digest: SHA256Digest, size: UInt64, at location: PackLocation) throws
        -> ContentStore.ReadResult
    {
        let read = state.withLock { $0.packs.read(location, size: size, digest: digest, layout: layout) }
        return Self.checked(read, digest: digest, verify: true)
    }

    /// What is at `digest`'s name (not following a link), or `nil` when nothing is or its shard
    /// directory is a link or not a directory: the blob is missing then too.
    private func lstatBlob(_ digest: SHA256Digest) throws -> stat? {
        let path: String
        do {
            path = try layout.checkedBlobPath(digest)
        } catch let error as BlobStoreError where error.code == .unsafeLayout {
            return nil
        }
        return try Syscalls.lstat(path)
    }

    /// A finished step, timed from `clock`, which moves to now.
    private func step(_ name: String, count: Int, bytes: UInt64, since clock: inout UInt64) -> VerifyReport.Step {
        let now = Syscalls.monotonicNanoseconds()
        defer { clock = now }
        return VerifyReport.Step(name: name, count: count, bytes: bytes, seconds: Double(now - clock) / 1e9)
    }
}
