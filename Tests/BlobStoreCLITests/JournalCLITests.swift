import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStoreCLI

/// `blobstore journal`: the records and entries of the current generation, as text and as JSON
/// lines, with the damage found; read without the lock and without changing anything.
@Suite struct JournalCLITests {
    /// The format-1 store of the format-upgrade tests: a journal with every record type but
    /// relocate, and a format-1 manifest (Tests/BlobStoreTests/Fixtures/format1-store).
    private static let fixture = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("BlobStoreTests/Fixtures/format1-store")

    /// Every file of `directory` with its bytes, to show that a command changed nothing.
    private func snapshot(_ directory: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for file in regularFiles(under: directory) {
            files[file] = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
        }
        return files
    }

    /// The JSON objects of `run`'s output, one a line.
    private func objects(_ run: Execution) throws -> [[String: Any]] {
        try run.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func everyRecordOfTheJournalAndEveryEntryOfTheManifestAsText() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: store)
            let before = try snapshot(store)
            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            let lines = run.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let expected = [
                "journal \(store)/journal-2: generation 2, format 1, 473 bytes",
                "@24 put (68 bytes): key 'dedup/second', digest "
                    + "9ddc87f49129cf381e5a4a267cda8f913f5515ca6f5720b13f06e80bbcbe9646, size 2048, loose, "
                    + "created 2026-12-01T08:39:18.546Z",
                "@92 put (84 bytes): key 'overwritten-after-compaction', digest "
                    + "e726f94fc63be1f3fe97787782b21b3123da9f5d1bf779ae32119831aabdf070, size 260, loose, "
                    + "created 2026-12-01T08:39:18.547Z",
                "@176 remove (39 bytes): key 'removed-after-compaction'",
                "@215 put (105 bytes): key 'journal/metadata-and-expiry', digest "
                    + "4164011cf31d72368833210d91006a56637bb6868774b49f3d8e23f73f62a6c9, size 777, loose, "
                    + "created 2026-12-01T08:39:18.547Z, expires 2100-01-01T00:00:00.123Z, metadata 16 bytes",
                "@320 put (68 bytes): key 'expired', digest "
                    + "e4f8090f978304307fb69eade2f0061f760f99806cefb433738bbc04cc549518, size 20, loose, "
                    + "created 2026-12-01T08:39:18.547Z, expires 2001-09-09T01:46:40.000Z",
                "@388 evict (53 bytes): key 'expired', digest "
                    + "e4f8090f978304307fb69eade2f0061f760f99806cefb433738bbc04cc549518",
                "@441 access (32 bytes): key 'seventy-kib' at 2026-12-01T08:39:18.568Z",
                "end of journal: clean, 7 records",
                "manifest \(store)/manifest-2: format 1, 899 bytes",
            ]
            #expect(Array(lines.prefix(expected.count)) == expected)
            #expect(lines.contains { $0.hasPrefix("key 0x000180feff, digest b338eb71") }, "a key that is not UTF-8")
            #expect(lines.suffix(2) == ["end of manifest: whole, 13 entries", ""])
            #expect(lines.count == expected.count + 13 + 2)
            #expect(try snapshot(store) == before, "nothing written, not even LOCK")
        }
    }

    @Test func jsonLinesOfEveryKind() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: store)
            let run = try blobstore(["--store", store, "journal", "--json"], in: scratch)
            #expect(run.status == 0)
            let lines = try objects(run)
            let kinds = lines.map { $0["kind"] as? String ?? "?" }
            #expect(
                kinds == ["journal"] + Array(repeating: "record", count: 7) + ["journalEnd", "manifest"]
                    + Array(repeating: "entry", count: 13) + ["manifestEnd"])
            #expect(lines[0]["generation"] as? Int == 2 && lines[0]["version"] as? Int == 1)
            #expect(lines[0]["path"] as? String == store + "/journal-2" && lines[0]["bytes"] as? Int == 473)
            let put = lines[4]
            #expect(put["type"] as? String == "put" && put["offset"] as? Int == 215 && put["bytes"] as? Int == 105)
            #expect(put["key"] as? String == "journal/metadata-and-expiry" && put["size"] as? Int == 777)
            #expect(put["expires"] as? String == "2100-01-01T00:00:00.123Z" && put["pack"] is NSNull)
            #expect(put["metadata"] as? String == Data("journal metadata".utf8).base64EncodedString())
            #expect(lines[3]["type"] as? String == "remove" && lines[3]["ifDigest"] is NSNull)
            #expect(lines[6]["type"] as? String == "evict" && (lines[6]["digest"] as? String)?.count == 64)
            let accesses = try #require(lines[7]["accesses"] as? [[String: Any]])
            #expect(accesses.first?["key"] as? String == "seventy-kib")
            #expect(lines[8]["ending"] as? String == "clean" && lines[8]["records"] as? Int == 7)
            #expect(lines[8]["offset"] is NSNull && lines[8]["reason"] is NSNull)
            #expect(lines[10]["lastAccess"] as? String != nil)
            #expect(lines.last?["entries"] as? Int == 13 && lines.last?["damage"] is NSNull)
        }
    }

    /// A new store's journal, and after a compaction a format-2 manifest, with a packed value.
    @Test func aFormatTwoManifestAndPackedValues() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            for key in ["a", "b"] {
                #expect(
                    try blobstore(["--store", store, "put", key], input: Data("same".utf8), in: scratch).status == 0)
            }
            let fresh = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(fresh.status == 0)
            #expect(fresh.stdout.contains("@24 put (58 bytes): key 'a', digest "))
            #expect(fresh.stdout.contains(", size 4, pack 1 at 24, created "))
            #expect(
                fresh.stdout.hasSuffix(
                    "end of journal: clean, 2 records\nmanifest: none (a generation has one once it was compacted)\n"))
            #expect(try blobstore(["--store", store, "compact"], in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "rm", "a"], in: scratch).status == 0)
            let run = try blobstore(["--store", store, "journal", "--json"], in: scratch)
            #expect(run.status == 0)
            let lines = try objects(run)
            #expect(
                lines.map { $0["kind"] as? String ?? "?" } == [
                    "journal", "record", "journalEnd", "manifest", "entry", "entry", "manifestEnd",
                ])
            #expect(lines[1]["type"] as? String == "remove" && lines[1]["key"] as? String == "a")
            #expect(lines[3]["version"] as? Int == 3 && lines[3]["generation"] as? Int == 2)
            let pack = try #require(lines[4]["pack"] as? [String: Any])
            #expect(pack["pack"] as? Int == 1 && pack["offset"] as? Int == 24)
        }
    }

    /// A torn tail is reported with its offset and length, exit 0, and left in place: the dump
    /// never repairs (opening the store would truncate it).
    @Test func truncatedTrailingRecordIsReportedNotRepaired() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            let journal = store + "/journal-1"
            let size = fileSize(journal)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journal))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([0x20, 0, 0, 0, 1]))  // a record header cut short
            try handle.close()
            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            #expect(run.stdout.contains("end of journal: 1 record, then a torn tail of 5 bytes at offset \(size): "))
            let json = try objects(try blobstore(["--store", store, "journal", "--json"], in: scratch))
            #expect(json[2]["ending"] as? String == "tornTail")
            #expect(json[2]["offset"] as? Int == size && json[2]["bytes"] as? Int == 5)
            #expect(fileSize(journal) == size + 5, "not truncated")
        }
    }

    /// A damaged record stops the reading there, as replay stops: the records before it are
    /// printed, the damage is named with its offset and reason, and the command exits 65.
    @Test func checksumMismatchIsDamageAtItsOffset() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            for key in ["first", "second", "third"] {
                #expect(try blobstore(["--store", store, "put", key], input: Data(key.utf8), in: scratch).status == 0)
            }
            let records = try objects(try blobstore(["--store", store, "journal", "--json"], in: scratch))
            let second = try #require(records[2]["offset"] as? Int)
            let journal = store + "/journal-1"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
            bytes[second + 13] ^= 0x01  // the first payload byte
            try bytes.write(to: URL(fileURLWithPath: journal))

            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(run.status == 65)
            #expect(run.stdout.contains("key 'first'") && !run.stdout.contains("key 'second'"))
            #expect(
                run.stdout.contains(
                    "end of journal: 1 record, then DAMAGE at offset \(second) (checksum mismatch): "
                        + "\(bytes.count - second) bytes from there are not read"))
            #expect(
                run.stderr
                    == "Error: \(journal) is damaged at offset \(second) (checksum mismatch). Opening the store "
                    + "repairs it, keeping what can be read.\n")
            let json = try objects(try blobstore(["--store", store, "journal", "--json"], in: scratch))
            #expect(
                json.last?["ending"] as? String == "damaged" && json.last?["reason"] as? String == "checksum mismatch")
            #expect(try Data(contentsOf: URL(fileURLWithPath: journal)) == bytes, "not repaired")
        }
    }

    /// A damaged manifest block: the entries of the other blocks, then the damage, exit 65.
    @Test func damagedManifestBlockIsReported() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "compact"], in: scratch).status == 0)
            let manifest = store + "/manifest-2"
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: manifest)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
            bytes[24 + 13 + 2] ^= 0x01  // inside the first key block's payload
            try bytes.write(to: URL(fileURLWithPath: manifest))
            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(run.status == 65)
            #expect(run.stdout.contains("end of manifest: 0 entries, then DAMAGE: key block 0: checksum mismatch; "))
            #expect(run.stderr.hasPrefix("Error: \(manifest) is damaged: key block 0: checksum mismatch."))
        }
    }

    /// A journal whose header is not BlobStore's: no record is read, exit 65.
    @Test func badHeaderIsUnreadable() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            let journal = store + "/journal-1"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: journal))
            bytes[0] = UInt8(ascii: "X")
            try bytes.write(to: URL(fileURLWithPath: journal))
            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(run.status == 65)
            #expect(run.stdout.hasPrefix("journal \(journal): generation 1, format unknown, \(bytes.count) bytes\n"))
            #expect(run.stdout.contains("end of journal: UNREADABLE: the header is not a valid BlobStore header"))
        }
    }

    /// No store, or an empty directory: exit 66, as for every command that needs a store.
    @Test func aMissingStoreExitsSixtySix() throws {
        try withTemporaryDirectory { scratch in
            let typo = scratch.child("no/such/store")
            let run = try blobstore(["--store", typo, "journal"], in: scratch)
            #expect(run.status == 66)
            #expect(run.stderr.hasPrefix("Error: There is no store at \(typo). Check the path"))
            #expect(run.standardOutput.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: scratch.child("no")))
            try FileManager.default.createDirectory(atPath: scratch.child("empty"), withIntermediateDirectories: false)
            #expect(try blobstore(["--store", scratch.child("empty"), "journal"], in: scratch).status == 66)

            // A directory of other files is not a store, as for every command (exit 74).
            try scratch.write("documents/letter.txt", Data("dear".utf8))
            let documents = try blobstore(["--store", scratch.child("documents"), "journal"], in: scratch)
            #expect(documents.status == 74)
            #expect(
                documents.stderr
                    == "Error: \(scratch.child("documents")) is not a BlobStore store (it holds \"letter.txt\").\n")
        }
    }

    /// A writer stopped while it holds the store's exclusive lock does not hold the dump up:
    /// it takes no lock (a locking command would wait up to 30 s, then exit 75).
    @Test func aWriterHoldingTheLockDoesNotBlockTheDump() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "before"], input: Data("v".utf8), in: scratch).status == 0)
            let writer = try ChildProcess.start(tortureExecutable, ["stop-after-link", store, "racing"], in: scratch)
            defer {
                writer.send(SIGCONT)
                _ = try? writer.wait()
            }
            let deadline = Date(timeIntervalSinceNow: 30)
            while !isStopped(writer.pid) && Date() < deadline { usleep(5000) }
            #expect(isStopped(writer.pid), "the writer stopped holding the lock")
            let started = Date()
            let run = try blobstore(["--store", store, "journal"], in: scratch)
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(run.status == 0)
            #expect(run.stdout.contains("key 'before'") && !run.stdout.contains("key 'racing'"))
        }
    }

    // MARK: - The pieces

    @Test func timestampsAreExactToTheMillisecond() {
        #expect(Timestamp.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.iso8601(milliseconds: 1_764_599_400_123) == "2025-12-01T14:30:00.123Z")
        #expect(Timestamp.iso8601(milliseconds: 1_764_599_400_007) == "2025-12-01T14:30:00.007Z")
        #expect(Timestamp.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func keysAreQuotedWithControlCharactersEscaped() {
        #expect(DumpText.key("plain key") == "'plain key'")
        #expect(DumpText.key("a\nb\u{1b}") == "'a\\u{a}b\\u{1b}'")
        #expect(DumpText.key(StoreKey(bytes: [0x61, 0xff])) == "0x61ff")
    }

    @Test func parsing() throws {
        #expect(try ArgumentParser.parse(["journal"]).command == .run(JournalCommand(json: false)))
        #expect(
            try ArgumentParser.parse(["journal", "--json", "--store", "/s"]).command == .run(JournalCommand(json: true))
        )
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["journal", "extra"]) }
        #expect(throws: CommandLineError.self) { try ArgumentParser.parse(["journal", "--repair"]) }
        #expect(
            HelpText.root().contains(
                "\n  journal                 Print the journal's records and the manifest's\n"))
    }
}
