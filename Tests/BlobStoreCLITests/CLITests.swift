import BlobStore
import BlobStoreTestKit
import Foundation
import Testing

/// Runs the built `blobstore` binary and checks its output and exit codes.
@Suite struct CLITests {
    // MARK: - Help, version, usage errors

    @Test func versionPrintsToStandardOutputAndExitsZero() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["--version"], in: scratch)
            #expect(run.status == 0)
            #expect(run.stdout == "0.1.0\n")
            #expect(run.stderr.isEmpty)
        }
    }

    @Test func helpShowsOverviewUsageAndSubcommands() throws {
        try withTemporaryDirectory { scratch in
            for arguments in [["--help"], ["-h"], ["help"], []] {
                let run = try blobstore(arguments, in: scratch)
                #expect(run.status == 0)
                #expect(run.stdout.hasPrefix("OVERVIEW: "))
                #expect(run.stdout.contains("USAGE: blobstore [--store <dir>] [--durability <mode>] <subcommand>"))
                #expect(run.stdout.contains("OPTIONS:"))
                #expect(run.stdout.contains("SUBCOMMANDS:"))
                #expect(run.stdout.contains("See 'blobstore help <subcommand>' for detailed help."))
                #expect(run.stderr.isEmpty)
            }
        }
    }

    @Test func subcommandHelpShowsItsUsage() throws {
        try withTemporaryDirectory { scratch in
            for arguments in [["help", "put"], ["put", "--help"], ["put", "-h"]] {
                let run = try blobstore(arguments, in: scratch)
                #expect(run.status == 0)
                #expect(run.stdout.hasPrefix("OVERVIEW: Store a file"))
                #expect(
                    run.stdout.contains("USAGE: blobstore put [--store <dir>] [--durability <mode>] <key> [<file>]"))
                #expect(run.stdout.contains("ARGUMENTS:"))
            }
        }
    }

    @Test func unknownOptionIsAUsageError() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["--bogus"], in: scratch)
            #expect(run.status == 64)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("Error: Unknown option '--bogus'\n"))
            #expect(run.stderr.contains("Usage: blobstore [--store <dir>]"))
            #expect(run.stderr.contains("See 'blobstore --help' for more information."))
        }
    }

    @Test func missingArgumentIsAUsageError() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["get"], in: scratch)
            #expect(run.status == 64)
            #expect(run.stderr.hasPrefix("Error: Missing expected argument '<key> ...'\n"))
            #expect(run.stderr.contains("Usage: blobstore get "))
            #expect(run.stderr.contains("See 'blobstore get --help' for more information."))
            #expect(!FileManager.default.fileExists(atPath: scratch.child("default-store")))
        }
    }

    // MARK: - put, get, has, rm

    @Test func putFromFilePrintsTheSHA256() throws {
        try withTemporaryDirectory { scratch in
            let bytes = Data("hello, blob\n".utf8)
            let file = try scratch.write("hello.txt", bytes)
            let run = try blobstore(["--store", scratch.child("store"), "put", "greeting", file], in: scratch)
            #expect(run.status == 0)
            #expect(run.stdout == SHA256Hasher.hash(bytes).hex + "\n")
            #expect(run.stderr.isEmpty)
        }
    }

    /// `put --json` prints one object: the digest, the key and the size.
    @Test func putJSONPrintsTheDigestKeyAndSize() throws {
        try withTemporaryDirectory { scratch in
            let bytes = Data("hello, blob\n".utf8)
            let run = try blobstore(
                ["--store", scratch.child("store"), "put", "--json", "greeting"], input: bytes, in: scratch)
            #expect(run.status == 0)
            #expect(
                run.stdout == """
                    {
                      "digest" : "\(SHA256Hasher.hash(bytes).hex)",
                      "key" : "greeting",
                      "size" : 12
                    }

                    """)
            #expect(run.stderr.isEmpty)
        }
    }

    /// `-` names standard input for `put` and standard output for `get -o`.
    @Test func dashIsStandardInputAndOutput() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let bytes = Data("through the dash".utf8)
            let put = try blobstore(["--store", store, "put", "k", "-"], input: bytes, in: scratch)
            #expect(put.status == 0)
            let get = try blobstore(["--store", store, "get", "k", "-o", "-"], in: scratch)
            #expect(get.status == 0)
            #expect(get.standardOutput == bytes)
        }
    }

    /// `get --range` writes the bytes asked for, of a chunked value (put by the library, which
    /// chunks from 256 KiB here) and of one stored whole; a bad range or several keys exit 64.
    @Test func getWritesARangeOfOneValue() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let big = Data(SplitMix64.bytes(600 << 10, seed: 3))
            let small = Data("0123456789".utf8)
            try big.write(to: scratch.url.appendingPathComponent("big"))
            try small.write(to: scratch.url.appendingPathComponent("small"))
            for key in ["big", "small"] {
                let put = try blobstore(
                    ["--store", store, "put", "--chunk-threshold", "256K", key, scratch.child(key)], in: scratch)
                #expect(put.status == 0, "\(put.stderr)")
            }
            // The large value is kept as chunks: stats says so, in text and in JSON.
            let stats = try blobstore(["--store", store, "stats"], in: scratch)
            let text = String(decoding: stats.standardOutput, as: UTF8.self)
            #expect(text.contains("chunked values:  1 (600 KiB (614400 bytes))\n"), "\(text)")
            #expect(text.contains("distinct chunks: "), "\(text)")
            let json = try blobstore(["--store", store, "stats", "--json"], in: scratch)
            let object = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [String: Any])
            let chunks = try #require(object["chunks"] as? [String: Any])
            #expect(chunks["chunkedValues"] as? Int == 1 && chunks["distinctChunkBytes"] as? Int == 614400)
            #expect((chunks["distinctChunks"] as? Int ?? 0) > 1)
            let cases: [(String, String, Data)] = [
                ("big", "1000-1999", big[1000...1999]), ("big", "614000-", big[614000...]),
                ("big", "0-0", big[0...0]), ("small", "3-5", small[3...5]), ("small", "8-100", small[8...]),
                ("small", "20-30", Data()),
            ]
            for (key, range, expected) in cases {
                let run = try blobstore(["--store", store, "get", key, "--range", range], in: scratch)
                #expect(run.status == 0, "\(key) \(range): \(run.stderr)")
                #expect(run.standardOutput == expected, "\(key) \(range)")
            }
            for range in ["5-2", "-10", "a-b", "1-2-3", ""] {
                let run = try blobstore(["--store", store, "get", "small", "--range", range], in: scratch)
                #expect(run.status == 64, "--range '\(range)'")
            }
            let two = try blobstore(["--store", store, "get", "small", "big", "--range", "0-1"], in: scratch)
            #expect(two.status == 64)
            #expect(two.stderr.contains("one key"))
        }
    }

    @Test func aDirectoryGivenAsTheFileIsRefusedClearly() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["--store", scratch.child("store"), "put", "k", scratch.url.path], in: scratch)
            #expect(run.status == 74)
            #expect(run.stderr.contains("is a directory"))
            #expect(!FileManager.default.fileExists(atPath: scratch.child("store")))
        }
    }

    @Test func helpWinsOverAnUnknownSubcommand() throws {
        try withTemporaryDirectory { scratch in
            let run = try blobstore(["frob", "--help"], in: scratch)
            #expect(run.status == 0)
            #expect(String(decoding: run.standardOutput, as: UTF8.self).hasPrefix("OVERVIEW: "))
        }
    }

    @Test func putFromStandardInput() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let put = try blobstore(["--store", store, "put", "piped"], input: bytes, in: scratch)
            #expect(put.status == 0)
            #expect(put.stdout == SHA256Hasher.hash(bytes).hex + "\n")
            let get = try blobstore(["--store", store, "get", "piped"], in: scratch)
            #expect(get.status == 0)
            #expect(get.standardOutput == bytes)
        }
    }

    @Test func oneFileUnderTwoKeysIsStoredOnce() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let file = try scratch.write("value.bin", Data(repeating: 7, count: 4096))
            for key in ["first", "second"] {
                #expect(try blobstore(["--store", store, "put", key, file], in: scratch).status == 0)
            }
            #expect(regularFiles(under: store + "/blobs").isEmpty, "a 4 KiB value is packed")
            #expect(regularFiles(under: store + "/packs") == ["pack-1"])

            let stats = try blobstore(["--store", store, "stats", "--json"], in: scratch)
            #expect(stats.status == 0)
            let object = try #require(try JSONSerialization.jsonObject(with: stats.standardOutput) as? [String: Any])
            #expect(object["entries"] as? Int == 2)
            #expect(object["distinctBlobs"] as? Int == 1)
            #expect(object["logicalBytes"] as? Int == 8192)
            // The disk it takes: the pack's 24-byte header and one needle (36 bytes, then the value).
            #expect(object["storedBytes"] as? Int == 24 + 36 + 4096)

            let summary = try blobstore(["--store", store, "stats"], in: scratch)
            #expect(summary.stdout.contains("saved by dedup: 3.9 KiB (\(8192 - (24 + 36 + 4096)) bytes)\n"))
        }
    }

    @Test func statsCountTheReadsOfEveryProcess() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            for _ in 0..<2 { #expect(try blobstore(["--store", store, "get", "k"], in: scratch).status == 0) }
            #expect(try blobstore(["--store", store, "get", "absent"], in: scratch).status == 1)

            let stats = try blobstore(["--store", store, "stats", "--json"], in: scratch)
            let object = try #require(try JSONSerialization.jsonObject(with: stats.standardOutput) as? [String: Any])
            #expect(object["hits"] as? Int == 0, "this process read nothing")
            let usage = try #require(object["allProcesses"] as? [String: Any])
            #expect(usage["hits"] as? Int == 2 && usage["misses"] as? Int == 1 && usage["evictions"] as? Int == 0)
            let summary = try blobstore(["--store", store, "stats"], in: scratch)
            #expect(summary.stdout.contains("hits:           2\nmisses:         1\nhit ratio:      66.7%\n"))
        }
    }

    @Test func getWritesIdenticalBytesToStandardOutputAndToAFile() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 % 251) })
            let file = try scratch.write("big.bin", bytes)
            #expect(try blobstore(["--store", store, "put", "big", file], in: scratch).status == 0)

            let toStdout = try blobstore(["--store", store, "get", "big"], in: scratch)
            #expect(toStdout.status == 0)
            #expect(toStdout.standardOutput == bytes)

            let copy = scratch.child("copy.bin")
            let toFile = try blobstore(["--store", store, "get", "big", "-o", copy], in: scratch)
            #expect(toFile.status == 0)
            #expect(toFile.standardOutput.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == bytes)
        }
    }

    @Test func getOfAMissingKeyExitsOne() throws {
        try withTemporaryDirectory { scratch in
            let copy = scratch.child("copy.bin")
            let store = scratch.child("store")
            try scratch.write("one.txt", Data("one".utf8))
            #expect(
                try blobstore(["--store", store, "put", "present", scratch.child("one.txt")], in: scratch).status == 0)
            let run = try blobstore(["--store", store, "get", "absent", "-o", copy], in: scratch)
            #expect(run.status == 1)
            #expect(run.standardOutput.isEmpty)
            #expect(run.stderr == "Error: No value for key 'absent'.\n")
            #expect(!FileManager.default.fileExists(atPath: copy))
        }
    }

    /// `get` of several keys writes their values one after another, as `cat` does, to standard
    /// output or to one file.
    @Test func getOfSeveralKeysWritesTheValuesInOrder() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let big = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 % 241) })
            for (key, value) in [("a", Data("first,".utf8)), ("big", big), ("c", Data("third".utf8))] {
                #expect(try blobstore(["--store", store, "put", key], input: value, in: scratch).status == 0)
            }
            let expected = Data("first,".utf8) + big + Data("third".utf8) + Data("first,".utf8)
            let toStdout = try blobstore(["--store", store, "get", "a", "big", "c", "a"], in: scratch)
            #expect(toStdout.status == 0 && toStdout.stderr.isEmpty)
            #expect(toStdout.standardOutput == expected)
            let copy = scratch.child("all.bin")
            let toFile = try blobstore(["--store", store, "get", "a", "big", "c", "a", "-o", copy], in: scratch)
            #expect(toFile.status == 0 && toFile.standardOutput.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == expected)
        }
    }

    /// If any key is missing, `get` writes nothing, creates no file, names every missing key and
    /// exits 1.
    @Test func getOfSeveralKeysWithMissingOnesWritesNothing() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "here"], input: Data("x".utf8), in: scratch).status == 0)
            let copy = scratch.child("copy.bin")
            let run = try blobstore(["--store", store, "get", "here", "gone", "here", "lost", "-o", copy], in: scratch)
            #expect(run.status == 1)
            #expect(run.stderr == "Error: No value for keys 'gone', 'lost'.\n")
            #expect(!FileManager.default.fileExists(atPath: copy))
            let one = try blobstore(["--store", store, "get", "here", "gone"], in: scratch)
            #expect(one.status == 1 && one.standardOutput.isEmpty)
            #expect(one.stderr == "Error: No value for key 'gone'.\n")
        }
    }

    /// `rm` of several keys removes every one that is stored, then names the missing ones and
    /// exits 1.
    @Test func rmOfSeveralKeysRemovesThoseStoredAndNamesTheOthers() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            for key in ["a", "b", "c"] {
                #expect(try blobstore(["--store", store, "put", key], input: Data(key.utf8), in: scratch).status == 0)
            }
            #expect(try blobstore(["--store", store, "rm", "a", "b"], in: scratch).status == 0)
            let run = try blobstore(["--store", store, "rm", "x", "c", "b"], in: scratch)
            #expect(run.status == 1)
            #expect(run.stderr == "Error: No value for keys 'x', 'b'.\n")
            #expect(run.standardOutput.isEmpty)
            #expect(try blobstore(["--store", store, "ls"], in: scratch).stdout.isEmpty, "c was removed too")
        }
    }

    /// Commands that only read never create a store. Without one, a lookup is a miss (exit 1),
    /// as in an empty cache, and says there is no store.
    @Test func lookupsOnAMissingStoreAreMissesAndCreateNothing() throws {
        try withTemporaryDirectory { scratch in
            let typo = scratch.child("no/such/store")
            let digest = String(repeating: "0", count: 64)
            for (arguments, miss) in [
                (["get", "k"], "No value for key 'k'"), (["blob", digest], "No blob with digest \(digest)"),
                (["has", "k"], "No value for key 'k'"), (["rm", "k"], "No value for key 'k'"),
            ] {
                let run = try blobstore(["--store", typo] + arguments, in: scratch)
                #expect(run.status == 1, "\(arguments)")
                #expect(run.stderr.hasPrefix("Error: \(miss): there is no store at \(typo). "), "\(run.stderr)")
                #expect(run.standardOutput.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.child("no")))
        }
    }

    /// A command that needs a store exits 66 (EX_NOINPUT) where there is none, a directory that
    /// does not exist or an empty one, naming the path and what to do, and creates nothing.
    @Test func aMissingStoreExitsSixtySixWithThePathAndWhatToDo() throws {
        try withTemporaryDirectory { scratch in
            let typo = scratch.child("no/such/store")
            let empty = scratch.child("empty")
            try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
            for path in [typo, empty] {
                for arguments in [["ls"], ["stats"], ["stats", "--json"]] {
                    let run = try blobstore(["--store", path] + arguments, in: scratch)
                    #expect(run.status == 66, "\(arguments)")
                    #expect(
                        run.stderr
                            == "Error: There is no store at \(path). Check the path, or pass --store <dir> to use "
                            + "another store; 'blobstore put <key> [<file>]' creates one.\n")
                    #expect(run.standardOutput.isEmpty)
                }
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.child("no")))
            #expect(try FileManager.default.contentsOfDirectory(atPath: empty).isEmpty)

            // The default store: the message says where the path comes from.
            let run = try blobstore(["ls"], in: scratch)
            #expect(run.status == 66)
            #expect(
                run.stderr.hasPrefix(
                    "Error: There is no store at \(scratch.child("default-store")) (the default store, from "
                        + "$BLOBSTORE_DIR). Check the path"))
        }
    }

    @Test func hasExitsZeroForAPresentKeyAndOneForAMissingKey() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "here"], input: Data("x".utf8), in: scratch).status == 0)
            let present = try blobstore(["--store", store, "has", "here"], in: scratch)
            let absent = try blobstore(["--store", store, "has", "elsewhere"], in: scratch)
            #expect(present.status == 0)
            #expect(absent.status == 1)
            #expect(present.standardOutput.isEmpty && absent.standardOutput.isEmpty)
        }
    }

    @Test func removedKeyIsGone() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "doomed"], input: Data("x".utf8), in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "rm", "doomed"], in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "get", "doomed"], in: scratch).status == 1)
            let again = try blobstore(["--store", store, "rm", "doomed"], in: scratch)
            #expect(again.status == 1)
            #expect(again.stderr == "Error: No value for key 'doomed'.\n")
        }
    }

    /// A value larger than the store's capacity is refused with exit 73 (EX_CANTCREAT), not as a
    /// usage error: the command line was right. Nothing is stored; the key keeps its value.
    @Test func aValueLargerThanTheCapacityExitsSeventyThree() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "config", "--capacity", "1K"], in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("small".utf8), in: scratch).status == 0)
            let big = Data(repeating: 1, count: 2000)
            let file = try scratch.write("big.bin", big)
            for (arguments, input) in [(["put", "k", file], Data()), (["put", "k"], big)] {
                let run = try blobstore(["--store", store] + arguments, input: input, in: scratch)
                #expect(run.status == 73, "\(arguments)")
                #expect(run.stderr.hasPrefix("Error: The value is "), "\(run.stderr)")
                #expect(run.stderr.contains("more than the store's capacity of 1024 bytes; it is not stored."))
                #expect(run.stderr.contains("(EvictionLimits.capacity)"), "the library's advice, in its terms")
                #expect(
                    run.stderr.hasSuffix("\nHint: raise the capacity with 'blobstore config --capacity <size>'.\n"),
                    "and the CLI's")
                #expect(!run.stderr.contains("Usage:"))
                #expect(run.standardOutput.isEmpty)
            }
            #expect(
                try blobstore(["--store", store, "get", "k"], in: scratch).stdout == "small", "the old value stays")
        }
    }

    @Test func keyWithSlashesDotsSpacesAndLeadingDashRoundTrips() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let key = "-../a b/../../etc/passwd"
            let bytes = Data("odd key".utf8)
            #expect(try blobstore(["--store", store, "put", "--", key], input: bytes, in: scratch).status == 0)
            let get = try blobstore(["--store", store, "get", "--", key], in: scratch)
            #expect(get.status == 0)
            #expect(get.standardOutput == bytes)
            let list = try blobstore(["--store", store, "ls"], in: scratch)
            #expect(list.stdout == "\(SHA256Hasher.hash(bytes).hex)  7  \(key)\n")
        }
    }

    @Test func damagedBlobExitsSixtyFiveThenReadsAsMissing() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("hello".utf8), in: scratch).status == 0)
            try damageStoredCopy(of: Data("hello".utf8), in: store)

            let damaged = try blobstore(["--store", store, "get", "k"], in: scratch)
            #expect(damaged.status == 65)
            #expect(damaged.standardOutput.isEmpty)
            #expect(damaged.stderr.contains("damaged or missing on disk"))
            #expect(try blobstore(["--store", store, "get", "k"], in: scratch).status == 1)
        }
    }

    // MARK: - blob

    /// `blob` finds content by digest, lowercase or uppercase, under any key or none, and
    /// copies it to standard output or a file; a digest the store does not hold exits 1.
    @Test func blobWritesTheContentOfADigest() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 % 253) })
            let file = try scratch.write("big.bin", bytes)
            let put = try blobstore(["--store", store, "put", "big", file], in: scratch)
            let hex = String(put.stdout.dropLast())
            let toStdout = try blobstore(["--store", store, "blob", hex], in: scratch)
            #expect(toStdout.status == 0 && toStdout.standardOutput == bytes && toStdout.stderr.isEmpty)
            let copy = scratch.child("copy.bin")
            let toFile = try blobstore(["--store", store, "blob", hex.uppercased(), "-o", copy], in: scratch)
            #expect(toFile.status == 0 && toFile.standardOutput.isEmpty)
            #expect(try Data(contentsOf: URL(fileURLWithPath: copy)) == bytes)
            #expect(try blobstore(["--store", store, "rm", "big"], in: scratch).status == 0)
            #expect(
                try blobstore(["--store", store, "blob", hex], in: scratch).standardOutput == bytes, "no key needed")

            let absent = SHA256Hasher.hash(Data("absent".utf8)).hex
            let missing = try blobstore(["--store", store, "blob", absent, "-o", scratch.child("none")], in: scratch)
            #expect(missing.status == 1 && missing.standardOutput.isEmpty)
            #expect(missing.stderr == "Error: No blob with digest \(absent).\n")
            #expect(!FileManager.default.fileExists(atPath: scratch.child("none")))
        }
    }

    /// A digest argument that is not 64 hexadecimal digits is a usage error, found before any
    /// store is opened or created.
    @Test func blobOfAMalformedDigestIsAUsageError() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let sixtyThree = String(repeating: "0", count: 63)
            for (argument, reason) in [
                ("", "it is empty"), (sixtyThree, "it has 63 digits, not 64"),
                (sixtyThree + "00", "it has 65 digits, not 64"), ("../" + sixtyThree, "'.' is not a hexadecimal digit"),
                ("\u{1b}[31m" + sixtyThree, "'\\u{1b}' is not a hexadecimal digit"),
            ] {
                let run = try blobstore(["--store", store, "blob", "--", argument], in: scratch)
                #expect(run.status == 64)
                #expect(run.stderr.hasPrefix("Error: The value "), "\(run.stderr)")
                #expect(run.stderr.contains("is invalid for '<digest>': \(reason)"), "\(run.stderr)")
                #expect(run.stderr.contains("Usage: blobstore blob "))
                #expect(!run.stderr.contains("\u{1b}"), "control characters are escaped")
                #expect(run.standardOutput.isEmpty)
            }
            #expect(!FileManager.default.fileExists(atPath: store))
        }
    }

    @Test func blobOfADamagedBlobExitsSixtyFiveThenOne() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let put = try blobstore(["--store", store, "put", "k"], input: Data("hello".utf8), in: scratch)
            let hex = String(put.stdout.dropLast())
            try damageStoredCopy(of: Data("hello".utf8), in: store)
            let damaged = try blobstore(["--store", store, "blob", hex], in: scratch)
            #expect(damaged.status == 65 && damaged.standardOutput.isEmpty)
            #expect(damaged.stderr.contains("damaged or missing on disk"))
            #expect(try blobstore(["--store", store, "blob", hex], in: scratch).status == 1)
            #expect(try blobstore(["--store", store, "has", "k"], in: scratch).status == 1, "its entry was dropped")
        }
    }

    // MARK: - ls, stats

    @Test func listShowsEveryKeyAsTextAndJSON() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let bytes = Data("same".utf8)
            for key in ["alpha", "beta/gamma"] {
                #expect(try blobstore(["--store", store, "put", key], input: bytes, in: scratch).status == 0)
            }
            let digest = SHA256Hasher.hash(bytes).hex

            let text = try blobstore(["--store", store, "ls"], in: scratch)
            #expect(text.status == 0)
            #expect(text.stdout == "\(digest)  4  alpha\n\(digest)  4  beta/gamma\n")

            let json = try blobstore(["--store", store, "ls", "--json"], in: scratch)
            #expect(json.status == 0)
            let array = try #require(try JSONSerialization.jsonObject(with: json.standardOutput) as? [[String: Any]])
            #expect(array.map { $0["key"] as? String } == ["alpha", "beta/gamma"])
            #expect(array.allSatisfy { $0["digest"] as? String == digest && $0["size"] as? Int == 4 })
            #expect(array.allSatisfy { $0["expires"] is NSNull })
            #expect(array.allSatisfy { ($0["created"] as? String)?.hasSuffix("Z") == true })
        }
    }

    // MARK: - Stores

    @Test func defaultStoreComesFromBLOBSTORE_DIR() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("from-environment")
            let environment = ["BLOBSTORE_DIR": store]
            #expect(
                try blobstore(["put", "k"], input: Data("v".utf8), environment: environment, in: scratch).status == 0)
            #expect(FileManager.default.fileExists(atPath: store + "/CURRENT"))
            let get = try blobstore(["get", "k"], environment: environment, in: scratch)
            #expect(get.stdout == "v")
        }
    }

    @Test func directoryThatIsNotAStoreIsRefused() throws {
        try withTemporaryDirectory { scratch in
            let notAStore = scratch.child("documents")
            try scratch.write("documents/letter.txt", Data("dear".utf8))
            let run = try blobstore(["--store", notAStore, "ls"], in: scratch)
            #expect(run.status == 74)
            #expect(run.stderr.hasPrefix("Error: "))
            #expect(run.stderr.contains("is not a BlobStore store"))
            #expect(run.standardOutput.isEmpty)
            #expect(regularFiles(under: notAStore) == ["letter.txt"])
        }
    }

    @Test func aStoreWritableByItsGroupIsRefusedWithTheFix() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            #expect(chmod(store, 0o770) == 0)
            let run = try blobstore(["--store", store, "get", "k"], in: scratch)
            #expect(run.status == 74)
            #expect(run.stderr.hasPrefix("Error: \(store) is writable by its group (mode 0770)"))
            #expect(run.stderr.contains("Run 'chmod go-w \(store)'"))
            #expect(run.standardOutput.isEmpty)
            #expect(chmod(store, 0o700) == 0)
            #expect(try blobstore(["--store", store, "get", "k"], in: scratch).stdout == "v")
        }
    }

    /// Root (the tests' user) reads a store that belongs to another user, and does not write it.
    // Needs root, to give the store to another user (chown); skipped, saying so, without.
    @Test(.enabled(if: SystemTools.isRoot, "needs root: chown to another user"))
    func aStoreOfAnotherUserIsOnlyRead() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            #expect(try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch).status == 0)
            #expect(chown(store, 65534, 65534) == 0)
            #expect(try blobstore(["--store", store, "get", "k"], in: scratch).stdout == "v")
            let put = try blobstore(["--store", store, "put", "k2"], input: Data("w".utf8), in: scratch)
            #expect(put.status == 74)
            #expect(put.stderr.contains("belongs to another user (uid 65534"))
            #expect(try blobstore(["--store", store, "has", "k2"], in: scratch).status == 1)
        }
    }

    // MARK: - Quiet

    /// `-q` leaves out the note that opening the store truncated a torn tail, and `demo`'s opening
    /// line; results, warnings and errors stay.
    @Test func quietLeavesOutNotesAndKeepsResultsAndErrors() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let put = try blobstore(["--store", store, "put", "k"], input: Data("v".utf8), in: scratch)
            #expect(put.status == 0)
            func tearTheJournal() throws {
                let journal = try FileHandle(forWritingTo: URL(fileURLWithPath: store + "/journal-1"))
                try journal.seekToEnd()
                try journal.write(contentsOf: Data(repeating: 0, count: 5))
                try journal.close()
            }
            try tearTheJournal()
            let loud = try blobstore(["--store", store, "ls"], in: scratch)
            #expect(loud.stderr.hasPrefix("Note: the journal ended in an interrupted write; its last 5 bytes"))
            try tearTheJournal()
            let quiet = try blobstore(["--store", store, "ls", "-q"], in: scratch)
            #expect(quiet.status == 0)
            #expect(quiet.stderr.isEmpty)
            #expect(quiet.stdout == loud.stdout && quiet.stdout.hasSuffix("  1  k\n"))

            let missing = try blobstore(["-q", "--store", store, "get", "absent"], in: scratch)
            #expect(missing.status == 1)
            #expect(missing.stderr == "Error: No value for key 'absent'.\n")

            try scratch.write("source/a.txt", Data("apple".utf8))
            let demo = try blobstore(["demo", "--quiet", "--store", store, scratch.child("source")], in: scratch)
            #expect(demo.status == 0)
            #expect(demo.stdout.hasPrefix("files:          1\n"), "\(demo.stdout)")
        }
    }

    // MARK: - demo

    @Test func demoStoresADirectoryTwiceAndReportsDeduplication() throws {
        try withTemporaryDirectory { scratch in
            try scratch.write("source/a.txt", Data("apple".utf8))
            try scratch.write("source/nested/b.txt", Data("banana bread".utf8))
            try scratch.write("source/.hidden", Data("skipped".utf8))
            let store = scratch.child("store")
            let run = try blobstore(["demo", "--store", store, scratch.child("source")], in: scratch)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            #expect(run.stdout.contains("files:          2\n"))
            #expect(run.stdout.contains("bytes put:      34 (logical)\n"))
            #expect(run.stdout.contains("bytes added:    17 (new blobs written to disk)\n"))
            #expect(run.stdout.contains("saved by dedup: 17 bytes\n"))
            #expect(run.stdout.contains("read back:      4 values, all identical\n"))
            #expect(regularFiles(under: store + "/blobs").isEmpty, "small values are packed")
            for value in ["apple", "banana bread"] {
                #expect(storedCopy(of: Data(value.utf8), in: store) != nil, "\(value) is stored")
            }
            #expect(fileSize(store + "/packs/pack-1") == 24 + (36 + 5) + (36 + 12), "each content once")
        }
    }

    /// `demo --json` prints the counts and the store's statistics as one object, and nothing else.
    @Test func demoJSONIsOneObject() throws {
        try withTemporaryDirectory { scratch in
            try scratch.write("source/a.txt", Data("apple".utf8))
            try scratch.write("source/nested/b.txt", Data("banana bread".utf8))
            let run = try blobstore(
                ["demo", "--json", "--store", scratch.child("store"), scratch.child("source")], in: scratch)
            #expect(run.status == 0)
            #expect(run.stderr.isEmpty)
            let object = try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any])
            #expect(object["files"] as? Int == 2)
            #expect(object["valuesPut"] as? Int == 4)
            #expect(object["bytesPut"] as? Int == 34)
            #expect(object["bytesAdded"] as? Int == 17)
            #expect(object["bytesSaved"] as? Int == 17)
            #expect(object["mismatches"] as? Int == 0)
            #expect(object["source"] as? String == scratch.child("source"))
            let stats = try #require(object["stats"] as? [String: Any])
            #expect(stats["entries"] as? Int == 4)
            #expect(stats["distinctBlobs"] as? Int == 2)
        }
    }
}
