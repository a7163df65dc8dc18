import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// Each kind of bad input gets a typed error whose message says what to do, and the store
/// stays consistent.
@Suite struct BadInputTests {

    @Test func nonEmptyDirectoryThatIsNotAStoreIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            writeBytes(dir.child("notes.txt"), Array("mine".utf8))
            #expect(errorCode { _ = try BlobStore(at: dir.path) } == .notAStore)
            #expect(readBytes(dir.child("notes.txt")) == Array("mine".utf8))
            #expect(!FileManager.default.fileExists(atPath: dir.child("CURRENT")))
        }
    }

    @Test func aFileWhereTheStoreShouldBeIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            writeBytes(dir.child("file"), [1])
            #expect(errorCode { _ = try BlobStore(at: dir.child("file")) } == .notAStore)
            #expect(readBytes(dir.child("file")) == [1])
        }
    }

    @Test func anotherProgramsDirectoryWithACurrentFileIsRefusedUntouched() throws {
        try withTemporaryDirectory { dir throws in
            writeBytes(dir.child("CURRENT"), Array("MANIFEST-000001\n".utf8))
            writeBytes(dir.child("000001.ldb"), [1, 2, 3])
            #expect(errorCode { _ = try BlobStore(at: dir.path) } == .notAStore)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["000001.ldb", "CURRENT"])
        }
    }

    @Test func aMissingStoreIsNotCreatedWhenAskedNotTo() throws {
        try withTemporaryDirectory { dir throws in
            var configuration = fast
            configuration.createIfMissing = false
            #expect(errorCode { _ = try BlobStore(at: dir.child("a/b"), configuration: configuration) } == .notFound)
            #expect(errorCode { _ = try BlobStore(at: dir.path, configuration: configuration) } == .notFound)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
        }
    }

    /// The store path may be a symbolic link (the user chose it); links inside are refused.
    @Test func aSymlinkedStorePathIsFollowed() throws {
        try withTemporaryDirectory { dir throws in
            let real = dir.child("real")
            try withStore(real) { store throws in try store.put(Data("x"), for: "k") }
            try FileManager.default.createSymbolicLink(atPath: dir.child("link"), withDestinationPath: real)
            try withStore(dir.child("link")) { store throws in #expect(try store.value(for: "k") == Data("x")) }
        }
    }

    @Test func newerStoreFormatIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in try store.put(Data("x"), for: "k") }
            writeBytes(path + "/CURRENT", Array("blobstore-format 2\ngeneration 1\n".utf8))
            #expect(errorCode { _ = try BlobStore(at: path) } == .unsupportedVersion)
        }
    }

    @Test func newerJournalVersionIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in try store.put(Data("x"), for: "k") }
            var header = JournalHeader(generation: 1)
            header.version = JournalFormat.version + 1
            var bytes = readBytes(path + "/journal-1")
            bytes.replaceSubrange(0..<24, with: header.encoded)
            writeBytes(path + "/journal-1", bytes)
            #expect(errorCode { _ = try BlobStore(at: path) } == .unsupportedVersion)
        }
    }

    @Test func journalOfPureGarbageIsACorruptStore() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in try store.put(Data("x"), for: "k") }
            writeBytes(path + "/journal-1", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) })
            #expect(errorCode { _ = try BlobStore(at: path) } == .corrupt)
            // Refusing did not change the journal.
            #expect(readBytes(path + "/journal-1").count == 4096)
        }
    }

    /// A read-only store directory: root ignores mode bits, so the directory is made immutable
    /// with `chattr +i` (skipped, with the reason, where chattr or the privilege is missing).
    // Needs chattr +i (the tool, and CAP_LINUX_IMMUTABLE: root); skipped, saying which is missing, without.
    @Test(.enabled(if: SystemTools.chattrWorks, Comment(rawValue: SystemTools.chattrMissing)))
    func readOnlyStoreDirectoryGivesPermissionDeniedAndKeepsTheStore() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let damaged = try withStore(path, looseOnly) { store throws in
                try store.put(Data("before"), for: "k")
                return try store.put(Data("to be damaged"), for: "damaged")
            }
            chmod(blobFile(path, damaged), 0o600)
            flipBit(blobFile(path, damaged), at: 0, bit: 0)
            let blobs = path + "/blobs/sha256"
            try #require(
                ChildProcess.status(SystemTools.chattrPath, ["+i", path, blobs, path + "/tmp", path + "/journal-1"])
                    == 0)
            defer {
                _ = ChildProcess.status(
                    SystemTools.chattrPath, ["-i", path, blobs, path + "/tmp", path + "/journal-1"])
            }
            try withStore(path) { store throws in
                #expect(try store.value(for: "k") == Data("before"))
                #expect(errorCode { try store.put(Data("new content"), for: "k2") } == .permissionDenied)
                #expect(try store.value(for: "k") == Data("before"))
                #expect(try store.value(for: "damaged") == nil, "damage reads as a miss even when read-only")
                #expect(try store.stats().damagedReads == 1)
                #expect(try store.stats().repairs == 0)
            }
        }
    }

    /// A 2 GiB sparse file is streamed in and out; peak memory stays far below its size. The
    /// put runs in a child process (`blobstore-test-helper put-file`), whose own peak resident
    /// memory `ChildProcess` reads: this process's high-water mark counts every test running in
    /// parallel with this one.
    @Test func twoGiBStreamedValueKeepsMemoryFlat() throws {
        try withTemporaryDirectory { dir throws in
            let source = dir.child("sparse")
            let fd = open(source, O_CREAT | O_WRONLY, 0o600)
            _ = "tail".withCString { pwrite(fd, $0, 4, 2 << 30) }
            close(fd)
            let run = try ChildProcess.run(
                BuiltProducts.executable("blobstore-test-helper"), ["put-file", dir.child("s"), "big", source], in: dir)
            try #require(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            try #require(lines.count == 3, "\(run.stdout)")
            #expect(lines[1] == String((2 << 30) + 4))
            #expect(lines[2].hasSuffix(lines[0]), "the file URL names the digest")
            #expect(run.peakResidentBytes > 0, "the child's peak memory was read")
            // Far below the value: 41–44 MiB when this test runs alone. The 195-408 MiB once seen
            // in parallel runs were this process's memory, reported for the child by ru_maxrss
            // (docs/reliability.md, "Open questions"); a quarter of the value still tells
            // streaming from a value held whole.
            #expect(run.peakResidentBytes < 512 << 20, "peak RSS \(run.peakResidentBytes >> 20) MiB")
            try withStore(dir.child("s")) { store throws in
                #expect(try store.info(for: "big")?.digest.hex == lines[0])
            }
        }
    }
}
