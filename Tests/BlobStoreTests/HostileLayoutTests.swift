import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStore

/// A directory outside the store that planted links point into. ``isUntouched`` compares it
/// with how it was made: names, types, sizes, link counts, modification and change times, bytes
/// and link targets. A hard link made to one of its files, or a file written, renamed or deleted
/// in it, shows.
struct Outside {
    let path: String
    private var snapshot: [String: String] = [:]

    init(_ path: String, files: [String: [UInt8]]) {
        self.path = path
        try! FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for (name, bytes) in files { writeBytes(path + "/" + name, bytes) }
        snapshot = Self.describe(path)
    }

    /// Takes the current state as the reference (after the test arranged more files in it).
    mutating func settle() { snapshot = Self.describe(path) }

    var isUntouched: Bool { Self.describe(path) == snapshot }

    private static func describe(_ path: String) -> [String: String] {
        var description: [String: String] = [:]
        for relative in allPaths(under: path) {
            let file = path + "/" + relative
            var info = stat()
            guard lstat(file, &info) == 0 else { continue }
            var text =
                "mode \(info.st_mode) size \(info.st_size) links \(info.st_nlink) "
                + "mtime \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) ctime \(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
            if info.st_mode & S_IFMT == S_IFREG { text += " bytes \(readBytes(file))" }
            if info.st_mode & S_IFMT == S_IFLNK {
                text += " target " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: file)) ?? "?")
            }
            description[relative] = text
        }
        return description
    }
}

/// Files planted in a store by someone else, or by a mistake: symbolic links where the store
/// keeps its directories and files, FIFOs and directories where it keeps blobs. None is ever
/// followed to read or write outside the store; each is refused with `unsafeLayout` or treated
/// as damage.
@Suite struct HostileLayoutTests {

    /// Reads that would return whatever a followed link led to, if they followed one: the digest
    /// is not checked.
    /// Reads check sizes only; nothing is packed (the tests here plant files at blob names).
    private let trusting = {
        var configuration = BlobStore.Configuration(durability: .none, verifyReads: false)
        configuration.packThreshold = 0
        return configuration
    }()

    /// Some content whose blob goes to shard `shard` (`blobs/sha256/<shard as hex>`).
    private func content(inShard shard: UInt8, _ label: String) -> Data {
        (0...).lazy.map { Data("\(label) \($0)") }.first { SHA256Hasher.hash($0).shard == shard }!
    }

    // MARK: - In blobs/

    /// A link squatting on a blob's name, pointing at a file with the very bytes the blob
    /// should hold: a read is a miss (never those bytes, even without verification), the link
    /// goes to quarantine/, and a put of the same content links fresh bytes, as does a put
    /// that finds the link in its way.
    @Test func aLinkAtABlobNameIsDamageAndIsNeverFollowed() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = Data("the blob's own bytes")
            var outside = Outside(dir.child("outside"), files: ["copy": Array(value)])
            let digest = try withStore(path, trusting) { store throws in try store.put(value, for: "k") }
            let blob = blobFile(path, digest)
            #expect(unlink(blob) == 0 && symlink(outside.path + "/copy", blob) == 0)
            outside.settle()
            try withStore(path, trusting) { store throws in
                #expect(try store.value(for: "k") == nil)
                #expect(try store.stats().damagedReads == 1)
                #expect(try store.info(for: "k") == nil, "the entry was dropped")
                let quarantined = try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine")
                #expect(quarantined.count == 1 && quarantined[0].hasPrefix(digest.hex))
                try store.put(value, for: "k")
                #expect(try store.value(for: "k") == value)
                #expect(
                    fileMode(blob) & 0o777 == 0o400
                        && (try? FileManager.default.destinationOfSymbolicLink(atPath: blob)) == nil)

                // A put of content already referenced finds a link in its way (no read first).
                #expect(unlink(blob) == 0 && symlink(outside.path + "/copy", blob) == 0)
                try store.put(value, for: "other key")
                #expect(try store.value(for: "k") == value, "the older key is healed too")
                #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine").count == 2)

                #expect(unlink(blob) == 0 && symlink(outside.path + "/copy", blob) == 0)
                #expect(try store.fileHandle(for: "k") == nil)
                #expect(try store.blob(digest) == nil)
            }
            #expect(outside.isUntouched)
        }
    }

    /// A FIFO or a directory at a blob's name: a read neither waits for a writer nor fails, it
    /// is a miss, and the thing is moved to quarantine/.
    @Test func aFIFOOrADirectoryAtABlobNameIsDamageAndNeverWaitedOn() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let (fifo, directory) = try withStore(path, looseOnly) { store throws in
                (try store.put(Data("fifo"), for: "fifo"), try store.put(Data("directory"), for: "directory"))
            }
            #expect(unlink(blobFile(path, fifo)) == 0 && mkfifo(blobFile(path, fifo), 0o600) == 0)
            #expect(unlink(blobFile(path, directory)) == 0 && mkdir(blobFile(path, directory), 0o700) == 0)
            let store = try BlobStore(at: path, configuration: fast)
            defer { try? store.close() }
            let finished = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<Data?, any Error>?>(nil)
            DispatchQueue.global().async {
                let result = Result { try store.value(for: "fifo") }
                outcome.withLock { $0 = result }
                finished.signal()
            }
            if finished.wait(timeout: .now() + 10) == .timedOut {
                // Let the reader go: opening the FIFO for writing releases an open waiting for one.
                let writer = open(blobFile(path, fifo), O_WRONLY | O_NONBLOCK)
                if writer >= 0 { close(writer) }
                Issue.record("reading a blob that is a FIFO waited for a writer")
                return
            }
            #expect(try #require(outcome.withLock { $0 }).get() == nil)
            #expect(try store.value(for: "directory") == nil)
            #expect(try store.stats().damagedReads >= 2)
            let quarantined = try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine")
            #expect(
                quarantined.contains { $0.hasPrefix(fifo.hex) } && quarantined.contains { $0.hasPrefix(directory.hex) })
            #expect(try store.verify().isClean)
        }
    }

    /// A shard directory (`blobs/sha256/ab`) that is a link to a directory holding the right
    /// blob files: reads, puts and repairs in that shard refuse with `unsafeLayout`, never read
    /// through it or link, rename or delete in it; compaction and GC leave it alone; verify
    /// reports it as stray (its blobs as missing) and `verify(repair: true)` moves it to
    /// quarantine/, after which the shard works again.
    @Test func aShardDirectoryThatIsALinkIsRefusedAndNeverFollowed() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let first = Data("in the shard")
            let shard = SHA256Hasher.hash(first).shard
            let second = content(inShard: shard, "also in the shard")
            let elsewhere = content(inShard: shard &+ 1, "another shard")
            let digest = try withStore(path, looseOnly) { store throws in
                try store.put(first, for: "kept")
                return try store.put(first, for: "overwritten")
            }
            let shardPath = (blobFile(path, digest) as NSString).deletingLastPathComponent
            var outside = Outside(dir.child("outside"), files: [:])
            try FileManager.default.moveItem(atPath: shardPath, toPath: outside.path + "/shard")
            #expect(symlink(outside.path + "/shard", shardPath) == 0)
            outside.settle()
            try withStore(path, trusting) { store throws in
                #expect(errorCode { _ = try store.value(for: "kept") } == .unsafeLayout)
                #expect(errorCode { _ = try store.fileHandle(for: "kept") } == .unsafeLayout)
                #expect(errorCode { _ = try store.blob(digest) } == .unsafeLayout)
                #expect(errorCode { try store.put(second, for: "new") } == .unsafeLayout)
                #expect(try store.contains("kept"), "the index is not touched")
                // The overwritten key's blob becomes garbage only for this key: still referenced.
                try store.put(elsewhere, for: "overwritten")
                try store.compact()
                try store.collectGarbage(gracePeriod: .zero)
                #expect(outside.isUntouched)

                let report = try store.verify()
                #expect(report.strayFiles == [shardPath])
                #expect(report.missingBlobs == [VerifyReport.MissingBlob(digest: digest, keys: ["kept"])])
                let repaired = try store.verify(repair: true)
                #expect(repaired.quarantinedStrayFiles == 1 && repaired.droppedEntries == 1)
                #expect(try store.value(for: "kept") == nil)
                try store.put(second, for: "new")
                #expect(try store.value(for: "new") == second)
                #expect(try store.verify().isClean)
            }
            #expect(outside.isUntouched)
        }
    }

    /// Garbage in a shard that is a link: compaction deletes the blobs no entry refers to any
    /// more, but not through a link.
    @Test func garbageInAShardThatIsALinkIsNotDeletedThroughIt() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let first = Data("soon garbage")
            let elsewhere = content(inShard: SHA256Hasher.hash(first).shard &+ 1, "another shard")
            let digest = try withStore(path, looseOnly) { store throws in try store.put(first, for: "k") }
            let shardPath = (blobFile(path, digest) as NSString).deletingLastPathComponent
            var outside = Outside(dir.child("outside"), files: [:])
            try FileManager.default.moveItem(atPath: shardPath, toPath: outside.path + "/shard")
            #expect(symlink(outside.path + "/shard", shardPath) == 0)
            outside.settle()
            try withStore(path, looseOnly) { store throws in
                try store.put(elsewhere, for: "k")
                let report = try store.compact()
                #expect(report.blobsDeleted == 0)
                try store.collectGarbage(gracePeriod: .zero)
                #expect(try store.value(for: "k") == elsewhere)
            }
            #expect(outside.isUntouched)
            #expect(FileManager.default.fileExists(atPath: outside.path + "/shard/" + digest.hex))
        }
    }

    // MARK: - tmp/, quarantine/, blobs/

    /// `tmp/` replaced by a link while a store is open (at open it is refused): a put does not
    /// create its temporary file through it, and GC does not delete old files through it. A link
    /// inside `tmp/` is never followed by GC either.
    @Test func tmpThatIsALinkIsNeverWrittenOrSweptThrough() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var outside = Outside(dir.child("outside"), files: ["old-file": [1, 2, 3], "target": [4]])
            let old = timespec(tv_sec: 1_000_000_000, tv_nsec: 0)
            #expect(utimensat(AT_FDCWD, outside.path + "/old-file", [old, old], 0) == 0)
            outside.settle()
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("before"), for: "before")
                #expect(symlink(outside.path + "/target", path + "/tmp/0-planted") == 0)
                try store.collectGarbage(gracePeriod: .zero)
                #expect(outside.isUntouched, "a link in tmp/ is not followed")

                try FileManager.default.removeItem(atPath: path + "/tmp")
                #expect(symlink(outside.path, path + "/tmp") == 0)
                #expect(errorCode { try store.put(Data("new content"), for: "new") } == .unsafeLayout)
                #expect(errorCode { try store.collectGarbage(gracePeriod: .zero) } == .unsafeLayout)
                #expect(try store.value(for: "before") == Data("before"))
            }
            #expect(errorCode { _ = try BlobStore(at: path, configuration: fast) } == .unsafeLayout)
            #expect(outside.isUntouched)
        }
    }

    /// `quarantine/` that is a link: refused at open, and, planted while the store is open,
    /// nothing is moved into it: a damaged read or `verify(repair: true)` throws `unsafeLayout`
    /// instead, and the damaged blob stays where it is.
    @Test func quarantineThatIsALinkIsNeverMovedInto() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let outside = Outside(dir.child("outside"), files: [:])
            let digest = try withStore(path, looseOnly) { store throws in try store.put(Data("to be damaged"), for: "k")
            }
            #expect(symlink(outside.path, path + "/quarantine") == 0)
            #expect(errorCode { _ = try BlobStore(at: path, configuration: fast) } == .unsafeLayout)
            #expect(unlink(path + "/quarantine") == 0)
            try withStore(path, looseOnly) { store throws in
                #expect(symlink(outside.path, path + "/quarantine") == 0)
                chmod(blobFile(path, digest), 0o600)
                flipBit(blobFile(path, digest), at: 0, bit: 1)
                #expect(errorCode { _ = try store.value(for: "k") } == .unsafeLayout)
                #expect(errorCode { _ = try store.verify(repair: true) } == .unsafeLayout)
                #expect(FileManager.default.fileExists(atPath: blobFile(path, digest)))
            }
            #expect(outside.isUntouched)
        }
    }

    /// `blobs/` or `blobs/sha256/` that is a link is refused at open.
    @Test(arguments: ["blobs", "blobs/sha256"])
    func blobsDirectoryThatIsALinkIsRefused(_ name: String) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in try store.put(Data("x"), for: "k") }
            let outside = Outside(dir.child("outside"), files: [:])
            try FileManager.default.removeItem(atPath: path + "/" + name)
            #expect(symlink(outside.path, path + "/" + name) == 0)
            #expect(errorCode { _ = try BlobStore(at: path, configuration: fast) } == .unsafeLayout)
            #expect(outside.isUntouched)
        }
    }

    // MARK: - Files at the top of the store

    /// The journal, manifest, CURRENT or LOCK replaced by a link to a copy outside (LOCK by a
    /// dangling link): opening refuses with `unsafeLayout` and creates, reads into the index or
    /// writes nothing through the link.
    @Test(arguments: ["journal-2", "manifest-2", "CURRENT", "LOCK"])
    func storeFileThatIsALinkIsNeverFollowed(_ name: String) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("x"), for: "k")
                try store.compact()
                try store.put(Data("y"), for: "k2")
            }
            var outside = Outside(dir.child("outside"), files: [:])
            if name == "LOCK" {
                #expect(unlink(path + "/LOCK") == 0)
            } else {
                try FileManager.default.moveItem(atPath: path + "/" + name, toPath: outside.path + "/" + name)
            }
            #expect(symlink(outside.path + "/" + name, path + "/" + name) == 0)
            outside.settle()
            #expect(errorCode { _ = try BlobStore(at: path, configuration: fast) } == .unsafeLayout)
            #expect(outside.isUntouched)
            #expect(!FileManager.default.fileExists(atPath: outside.path + "/LOCK"))
        }
    }

    /// Links planted under the names the next compaction writes: compaction refuses rather
    /// than write through them, GC removes the planted names (as files of another generation),
    /// and compaction then succeeds.
    @Test func plantedNextGenerationFilesAreNeverWrittenThrough() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let outside = Outside(dir.child("outside"), files: ["journal": [1], "manifest": [2]])
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("x"), for: "k")
                #expect(symlink(outside.path + "/manifest", path + "/manifest-2") == 0)
                #expect(errorCode { try store.compact() } == .unsafeLayout)
                #expect(symlink(outside.path + "/manifest", path + "/manifest-2") == 0)
                #expect(symlink(outside.path + "/journal", path + "/journal-2") == 0)
                #expect(errorCode { try store.compact() } == .unsafeLayout)
                #expect(try store.collectGarbage().oldGenerationFilesDeleted >= 1)
                #expect(try store.compact().generationAfter == 2)
                #expect(try store.value(for: "k") == Data("x"))
            }
            #expect(outside.isUntouched)
        }
    }

    /// A `limits` file that is a link to limits elsewhere: not read (no recorded limits apply),
    /// reported by verify, and replaced, not written through, when limits are recorded.
    @Test func limitsThatIsALinkIsIgnoredAndReplaced() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { _ in }
            let outside = Outside(dir.child("outside"), files: ["limits": Array("capacity 10\nlow-water 0.9\n".utf8)])
            #expect(symlink(outside.path + "/limits", path + "/limits") == 0)
            try withStore(path, looseOnly) { store throws in
                #expect(store.limits == EvictionLimits())
                #expect(try store.verify().strayFiles == [path + "/limits"])
                try store.recordLimits(EvictionLimits(capacity: 1000))
                #expect(fileMode(path + "/limits") == 0o600)
            }
            try withStore(path, looseOnly) { store throws in #expect(store.limits.capacity == 1000) }
            #expect(outside.isUntouched)
        }
    }

    // MARK: - Who may write the store

    /// A store directory that its group or every user may write, sticky or not, is refused
    /// before anything is read or written in it, whether it holds a store or is empty.
    @Test(arguments: [0o770, 0o775, 0o777, 0o1777, 0o720, 0o702] as [mode_t])
    func aStoreDirectoryWritableByOthersIsRefused(_ mode: mode_t) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in try store.put(Data("x"), for: "k") }
            #expect(chmod(path, mode) == 0)
            let before = allPaths(under: path)
            let journal = readBytes(path + "/journal-1")
            #expect(
                refusal { _ = try BlobStore(at: path, configuration: fast) }?.contains("chmod go-w \(path)") == true)
            #expect(allPaths(under: path) == before && readBytes(path + "/journal-1") == journal)

            let empty = dir.child("empty")
            #expect(mkdir(empty, 0o700) == 0 && chmod(empty, mode) == 0)
            #expect(errorCode { _ = try BlobStore(at: empty, configuration: fast) } == .unsafeLayout)
            #expect(allPaths(under: empty).isEmpty)
        }
    }

    /// The same for the store's own directories and the files at its top.
    @Test(arguments: ["blobs", "blobs/sha256", "tmp", "quarantine", "journal-1", "CURRENT", "LOCK", "limits"])
    func aStoreDirectoryOrFileWritableByItsGroupIsRefused(_ name: String) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store throws in
                try store.put(Data("x"), for: "k")
                try store.recordLimits(EvictionLimits(capacity: 1 << 20))
            }
            #expect(mkdir(path + "/quarantine", 0o700) == 0 || name != "quarantine")
            #expect(chmod(path + "/" + name, fileMode(path + "/" + name) | 0o020) == 0)
            #expect(refusal { _ = try BlobStore(at: path, configuration: fast) }?.contains(path + "/" + name) == true)
        }
    }

    /// A store shared with a group on purpose: a configuration whose modes grant the group
    /// write permission accepts group-writable directories and files (and creates them so),
    /// but never world-writable ones.
    @Test func aGroupSharedStoreIsAcceptedWhenTheConfigurationSharesIt() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            var shared = fast
            shared.directoryMode = 0o770
            shared.fileMode = 0o660
            try withStore(path, shared) { store throws in try store.put(Data("x"), for: "k") }
            for name in ["", "/blobs", "/blobs/sha256", "/tmp"] { #expect(chmod(path + name, 0o770) == 0) }
            #expect(chmod(path + "/journal-1", 0o660) == 0)
            try withStore(path, shared) { store throws in
                try store.put(Data("y"), for: "k2")
                #expect(try store.value(for: "k") == Data("x"))
            }
            #expect(errorCode { _ = try BlobStore(at: path, configuration: fast) } == .unsafeLayout)
            #expect(chmod(path, 0o777) == 0)
            #expect(errorCode { _ = try BlobStore(at: path, configuration: shared) } == .unsafeLayout)
        }
    }

    /// A store whose directory belongs to another user (here `nobody`, made so by root, which
    /// the tests run as) is opened for reading only, by root as by anyone: reads work, every
    /// write throws `permissionDenied` naming the owner, and nothing in the store changes, not
    /// even a damaged blob (no repair). No store is created in another user's empty directory.
    /// A configuration that shares the store with a group writes it.
    // Needs root, to give the store to another user (chown); skipped, saying so, without.
    @Test(.enabled(if: SystemTools.isRoot, "needs root: chown to another user"))
    func aStoreOwnedByAnotherUserIsOpenedReadOnly() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let damaged = try withStore(path, looseOnly) { store throws in
                try store.put(Data("x"), for: "k")
                return try store.put(Data("to be damaged"), for: "damaged")
            }
            chmod(blobFile(path, damaged), 0o600)
            flipBit(blobFile(path, damaged), at: 0, bit: 0)
            #expect(chown(path, 65534, 65534) == 0)
            let before = allPaths(under: path)
            let journal = readBytes(path + "/journal-1")
            try withStore(path, looseOnly) { store throws in
                #expect(try store.value(for: "k") == Data("x"))
                #expect(try store.value(for: "damaged") == nil)
                for write in [
                    { _ = try store.put(Data("y"), for: "k2") }, { _ = try store.remove("k") },
                    { _ = try store.compact() }, { _ = try store.collectGarbage() },
                    { try store.recordLimits(EvictionLimits(capacity: 1000)) }, { _ = try store.verify(repair: true) },
                ] as [() throws -> Void] {
                    let message = refusal(write, code: .permissionDenied)
                    #expect(message?.contains("uid 65534") == true, "\(message ?? "no error")")
                }
                #expect(try store.verify().corruptBlobs.map(\.digest) == [damaged])
            }
            #expect(allPaths(under: path) == before && readBytes(path + "/journal-1") == journal)

            let empty = dir.child("empty")
            #expect(mkdir(empty, 0o700) == 0 && chown(empty, 65534, 65534) == 0)
            #expect(errorCode { _ = try BlobStore(at: empty, configuration: fast) } == .permissionDenied)
            #expect(allPaths(under: empty).isEmpty)

            var shared = fast
            shared.directoryMode = 0o770
            try withStore(path, shared) { store throws in try store.put(Data("y"), for: "k2") }
        }
    }

    /// The message of the `BlobStoreError` with `code` that `body` throws, or `nil` (recording
    /// an issue) when it throws nothing or something else.
    private func refusal(_ body: () throws -> Void, code expected: BlobStoreError.Code = .unsafeLayout) -> String? {
        do {
            try body()
            Issue.record("expected \(expected), nothing was thrown")
        } catch let error as BlobStoreError where error.code == expected {
            return error.message
        } catch {
            Issue.record("expected \(expected), got \(error)")
        }
        return nil
    }
}
