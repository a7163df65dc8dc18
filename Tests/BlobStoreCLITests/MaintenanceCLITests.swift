import BlobStore
import BlobStoreCache
import BlobStoreTestKit
import Foundation
import Testing

/// Runs the built `blobstore` binary's `compact`, `gc`, `verify` and `config` against real
/// stores. Stores are filled in this process through the library (faster than a process per put).
@Suite struct MaintenanceCLITests {
    // MARK: - Helpers

    /// Puts `count` distinct values of `size` bytes under `v-00`, `v-01`, …, in that order, so
    /// `v-00` is the least recently used.
    private func fill(_ path: String, count: Int, size: Int) throws {
        let store = try BlobStore(at: path, configuration: .init(durability: .none))
        defer { try? store.close() }
        for index in 0..<count {
            try store.put(Data(repeating: UInt8(index), count: size), for: StoreKey(key(index)))
        }
    }

    private func key(_ index: Int) -> String { index < 10 ? "v-0\(index)" : "v-\(index)" }

    /// Standard output parsed as a JSON object.
    private func object(_ run: Execution) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any], "\(run.stdout)")
    }

    /// Every regular file of the store with its contents.
    private func snapshot(_ store: String) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in regularFiles(under: store) {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: store + "/" + path))
        }
        return files
    }

    /// Bytes of the files of the store's top directory whose names start with `prefixes`.
    private func bytes(in store: String, startingWith prefixes: [String]) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: store)
            .filter { name in prefixes.contains { name.hasPrefix($0) } }
            .reduce(0) { total, name in
                total + ((try FileManager.default.attributesOfItem(atPath: store + "/" + name)[.size] as? Int) ?? 0)
            }
    }

    // MARK: - Help, usage errors, no store (independent of the library's maintenance code)

    @Test func helpTellsTheDefaults() throws {
        try withTemporaryDirectory { scratch in
            let gc = try blobstore(["gc", "--help"], in: scratch)
            #expect(gc.status == 0)
            #expect(gc.stderr.isEmpty)
            #expect(gc.stdout.hasPrefix("OVERVIEW: Evict entries over the store's limits"))
            #expect(gc.stdout.contains("(default: 1h)"))
            let config = try blobstore(["help", "config"], in: scratch)
            #expect(config.status == 0)
            #expect(config.stdout.contains("(default: 0.9)"))
            for name in ["compact", "verify"] {
                let run = try blobstore([name, "-h"], in: scratch)
                #expect(run.status == 0)
                #expect(run.stdout.contains("USAGE: blobstore \(name) "))
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.child("default-store")))
        }
    }

    @Test func badValuesAreUsageErrorsThatNameTheOption() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let capacity = try blobstore(["--store", store, "gc", "--capacity", "5Q"], in: scratch)
            #expect(capacity.status == 64)
            #expect(capacity.standardOutput.isEmpty)
            #expect(capacity.stderr.hasPrefix("Error: The value '5Q' is invalid for '--capacity <size>': "))
            #expect(capacity.stderr.contains("e.g. 1048576, 500M or 1.5G\nUsage: blobstore gc "))
            #expect(capacity.stderr.contains("See 'blobstore gc --help' for more information."))
            let lowWater = try blobstore(["--store", store, "config", "--low-water", "2"], in: scratch)
            #expect(lowWater.status == 64)
            #expect(lowWater.stderr.hasPrefix("Error: The value '2' is invalid for '--low-water <fraction>'"))
            let age = try blobstore(["--store", store, "gc", "--max-age=-1h"], in: scratch)
            #expect(age.status == 64)
            #expect(
                age.stderr.hasPrefix("Error: The value '-1h' is invalid for '--max-age <duration>': it is negative."))
            #expect(!FileManager.default.fileExists(atPath: store))
        }
    }

    /// Maintenance never creates a store, except `config` asked to record limits: without one it
    /// exits 66 (EX_NOINPUT).
    @Test func maintenanceOnAMissingStoreCreatesNothing() throws {
        try withTemporaryDirectory { scratch in
            let typo = scratch.child("no/such/store")
            for arguments in [
                ["compact"], ["gc"], ["gc", "--dry-run"], ["verify"], ["verify", "--repair"], ["config"], ["clear"],
            ] {
                let run = try blobstore(["--store", typo] + arguments, in: scratch)
                #expect(run.status == 66, "\(arguments)")
                #expect(run.stderr.hasPrefix("Error: There is no store at \(typo). "), "\(arguments)")
                #expect(run.standardOutput.isEmpty, "\(arguments)")
            }
            #expect(!FileManager.default.fileExists(atPath: scratch.child("no")))
        }
    }

    // MARK: - A memory tier over a store another process writes

    /// A value another process overwrote, or whose metadata it changed, is never served from
    /// this process's memory tier; one it removed is a miss.
    @Test func aMemoryHitIsCheckedAgainstWhatAnotherProcessWrote() throws {
        try withTemporaryDirectory { scratch in
            let path = scratch.child("store")
            let disk = try BlobStore(at: path, configuration: .init(durability: .none))
            defer { try? disk.close() }
            let cache = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20))
            try cache.put(Data("old".utf8), for: "k")
            #expect(try cache.entry(for: "k")?.tier == .memory)
            let put = try blobstore(["--store", path, "put", "k"], input: Data("new".utf8), in: scratch)
            #expect(put.status == 0, "\(put.stderr)")
            let read = try #require(try cache.entry(for: "k"))
            #expect(read.value == Data("new".utf8), "the overwrite in the other process wins")
            #expect(read.tier == .disk)
            #expect(try cache.entry(for: "k")?.tier == .memory, "and is remembered again")
            let removed = try blobstore(["--store", path, "rm", "k"], in: scratch)
            #expect(removed.status == 0, "\(removed.stderr)")
            #expect(try cache.value(for: "k") == nil)
        }
    }

    // MARK: - clear

    @Test func clearRemovesEveryEntryAndItsBlobs() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 30, size: 100 << 10)
            let run = try blobstore(["--store", store, "clear"], in: scratch)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == "removed 30 entries\n")
            #expect(regularFiles(under: store + "/blobs").isEmpty)
            let list = try blobstore(["--store", store, "ls"], in: scratch)
            #expect(list.status == 0 && list.standardOutput.isEmpty)
            let again = try blobstore(["--store", store, "clear", "--json"], in: scratch)
            #expect(try object(again)["removed"] as? Int == 0)
        }
    }

    // MARK: - compact (awaits BlobStore.compact())

    @Test func compactAfterAThousandOverwritesLeavesOneBlobAndASmallJournal() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let handle = try BlobStore(at: store, configuration: .init(durability: .none))
            for index in 0..<1000 { try handle.put(Data("value \(index)".utf8), for: "key") }
            try handle.close()
            let before = try bytes(in: store, startingWith: ["journal-", "manifest-"])
            #expect(before > 30_000, "1,000 put records")

            let run = try blobstore(["--store", store, "compact"], in: scratch)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty)
            #expect(run.stdout.contains("\nentries:        1\n"))
            // Compaction rewrote the pack of 1,000 needles into one holding the live one.
            #expect(regularFiles(under: store + "/blobs").isEmpty)
            let packs = regularFiles(under: store + "/packs")
            #expect(packs.count == 1, "\(packs)")
            #expect(packs.allSatisfy { fileSize(store + "/packs/" + $0) == 24 + 36 + 9 })
            let after = try bytes(in: store, startingWith: ["journal-", "manifest-"])
            #expect(after < 4096, "journal and manifest: \(after) bytes")
            #expect(try blobstore(["--store", store, "get", "key"], in: scratch).stdout == "value 999")
        }
    }

    @Test func compactJSONIsTheReport() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 3, size: 10)
            let run = try blobstore(["--store", store, "compact", "--json"], in: scratch)
            #expect(run.status == 0)
            let report = try object(run)
            #expect(
                Set(report.keys) == [
                    "blobBytesDeleted", "blobsDeleted", "entries", "generationAfter", "generationBefore",
                    "manifestBytes", "oldJournalBytes", "oldManifestBytes", "seconds",
                ])
            #expect(report["entries"] as? Int == 3)
            let before = try #require(report["generationBefore"] as? Int)
            #expect(report["generationAfter"] as? Int == before + 1)
            let stats = try object(try blobstore(["--store", store, "stats", "--json"], in: scratch))
            #expect(stats["generation"] as? Int == before + 1)
            #expect(stats["entries"] as? Int == 3)
        }
    }

    // MARK: - gc (awaits BlobStore.collectGarbage and limits)

    /// 40 values of 100 KiB, none read; a 1 MiB capacity evicts by the default policy, S3-FIFO
    /// (first in, first out while nothing was read), down to the low-water mark, 0.9 MiB: the 9
    /// newest values are left.
    @Test func gcCapacityEvictsTheOldestUnreadFirst() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 40, size: 100 * 1024)
            let run = try blobstore(["--store", store, "gc", "--capacity", "1M"], in: scratch)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr.isEmpty, "no progress when standard error is not a terminal")
            #expect(run.stdout.contains("0 least recently used, 31 chosen by s3fifo"))
            let stats = try object(try blobstore(["--store", store, "stats", "--json"], in: scratch))
            let stored = try #require(stats["storedBytes"] as? Int)
            #expect(stored <= 1 << 20)
            #expect(stats["entries"] as? Int == 9)
            #expect(try blobstore(["--store", store, "has", "v-39"], in: scratch).status == 0)
            #expect(try blobstore(["--store", store, "has", "v-00"], in: scratch).status == 1)
            #expect(try blobstore(["--store", store, "has", "v-30"], in: scratch).status == 1)
            #expect(try blobstore(["--store", store, "has", "v-31"], in: scratch).status == 0)
        }
    }

    @Test func gcWithoutGraceDeletesTheEvictedBlobFiles() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 40, size: 100 * 1024)
            let run = try blobstore(
                ["--store", store, "gc", "--capacity", "1M", "--grace", "0s", "--json"], in: scratch)
            #expect(run.status == 0, "\(run.stderr)")
            let report = try object(run)
            #expect(report["dryRun"] as? Bool == false)
            #expect(report["chosenByPolicyEntries"] as? Int == 31)
            #expect(report["entriesAfter"] as? Int == 9)
            let onDisk = regularFiles(under: store + "/blobs").reduce(0) { total, path in
                total
                    + ((try? FileManager.default.attributesOfItem(atPath: store + "/blobs/" + path)[.size] as? Int) ?? 0)
            }
            #expect(onDisk <= 1 << 20, "\(onDisk) bytes of blob files")
            #expect(regularFiles(under: store + "/blobs").count == 9)
        }
    }

    @Test func gcDryRunChangesNothing() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 40, size: 100 * 1024)
            let before = try snapshot(store)
            let json = try blobstore(["--store", store, "gc", "--capacity", "1M", "--dry-run", "--json"], in: scratch)
            #expect(json.status == 0, "\(json.stderr)")
            let report = try object(json)
            #expect(report["dryRun"] as? Bool == true)
            #expect(report["chosenByPolicyEntries"] as? Int == 31)
            let text = try blobstore(["--store", store, "gc", "--capacity", "1M", "--dry-run"], in: scratch)
            #expect(text.status == 0)
            #expect(text.stdout.hasPrefix("Dry run: nothing was changed."))
            #expect(try snapshot(store) == before)
            #expect(try blobstore(["--store", store, "has", "v-00"], in: scratch).status == 0)
        }
    }

    /// With no option gc applies the recorded limits; an option overrides one for that run only.
    @Test func gcOptionsOverrideTheRecordedLimitsForOneRun() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 5, size: 10)
            #expect(try blobstore(["--store", store, "config", "--max-age", "1h"], in: scratch).status == 0)
            let recorded = try object(try blobstore(["--store", store, "gc", "--json"], in: scratch))
            #expect(recorded["agedEntries"] as? Int == 0)
            #expect(recorded["entriesAfter"] as? Int == 5)
            usleep(50_000)
            let overridden = try object(
                try blobstore(["--store", store, "gc", "--max-age", "10ms", "--json"], in: scratch))
            #expect(overridden["agedEntries"] as? Int == 5)
            #expect(overridden["entriesAfter"] as? Int == 0)
            let config = try object(try blobstore(["--store", store, "config", "--json"], in: scratch))
            #expect(config["maxAgeSeconds"] as? Double == 3600)
        }
    }

    // MARK: - verify (awaits BlobStore.verify)

    @Test func verifyOfASoundStoreExitsZero() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            try fill(store, count: 2, size: 1000)
            let text = try blobstore(["--store", store, "verify"], in: scratch)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stderr.isEmpty, "no progress when standard error is not a terminal")
            #expect(text.stdout.hasPrefix("step "))
            #expect(text.stdout.contains("\nresult:         clean\n"))
            let json = try blobstore(["--store", store, "verify", "--json"], in: scratch)
            #expect(json.status == 0)
            let report = try object(json)
            #expect((report["steps"] as? [Any])?.isEmpty == false)
            #expect(report["entries"] as? Int == 2)
            #expect(report["blobsChecked"] as? Int == 2)
            #expect((report["corruptBlobs"] as? [Any])?.isEmpty == true)
            #expect((report["missingBlobs"] as? [Any])?.isEmpty == true)
            #expect((report["strayFiles"] as? [Any])?.isEmpty == true)
        }
    }

    /// A byte flipped in a blob: verify names it and exits 65 without changing anything;
    /// --repair drops the entry, so `get` misses; then verify is clean.
    @Test func verifyFindsAFlippedByteAndRepairDropsTheEntry() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            for (key, value) in [("k", "hello"), ("ok", "fine")] {
                #expect(
                    try blobstore(["--store", store, "put", key], input: Data(value.utf8), in: scratch).status == 0)
            }
            let hex = SHA256Hasher.hash(Data("hello".utf8)).hex
            try damageStoredCopy(of: Data("hello".utf8), in: store, at: 2)
            // "hello" is packed: the damage is in its needle.
            let pack = store + "/packs/pack-1"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: pack))

            let damaged = try blobstore(["--store", store, "verify"], in: scratch)
            #expect(damaged.status == 65)
            #expect(damaged.stdout.contains("\ncorrupt blobs:  1\n  \(hex)  "))
            #expect(damaged.stdout.contains("\n    key 'k'\n"))
            #expect(damaged.stdout.contains("\nresult:         damaged\n"))
            #expect(damaged.stderr.hasPrefix("Error: verify found 1 corrupt blob. Run 'blobstore verify --repair'"))
            let json = try blobstore(["--store", store, "verify", "--json"], in: scratch)
            #expect(json.status == 65)
            let corrupt = try #require((try object(json))["corruptBlobs"] as? [[String: Any]])
            #expect(corrupt.count == 1)
            #expect(corrupt.first?["digest"] as? String == hex)
            #expect(corrupt.first?["keys"] as? [String] == ["k"])
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: pack)) == bytes, "verify without --repair changes nothing")

            let repair = try blobstore(["--store", store, "verify", "--repair"], in: scratch)
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(
                repair.stdout.contains(
                    "\nrepair:         1 blob and 0 stray files moved to quarantine/, 1 entry dropped\n"))
            #expect(!regularFiles(under: store + "/quarantine").isEmpty)
            let get = try blobstore(["--store", store, "get", "k"], in: scratch)
            #expect(get.status == 1)
            #expect(get.standardOutput.isEmpty)
            #expect(try blobstore(["--store", store, "get", "ok"], in: scratch).stdout == "fine")
            let again = try blobstore(["--store", store, "verify"], in: scratch)
            #expect(again.status == 0, "\(again.stdout)")
            #expect(again.stdout.contains("\nresult:         clean\n"))
        }
    }

    // MARK: - config (awaits BlobStore.limits and recordLimits)

    @Test func configRecordsLimitsAndKeepsTheOthers() throws {
        try withTemporaryDirectory { scratch in
            let store = scratch.child("store")
            let set = try blobstore(["--store", store, "config", "--capacity", "5M"], in: scratch)
            #expect(set.status == 0, "\(set.stderr)")
            #expect(set.stdout.contains("capacity:       5.0 MiB (5242880 bytes)\n"))
            #expect(FileManager.default.fileExists(atPath: store + "/limits"))
            let shown = try blobstore(["--store", store, "config"], in: scratch)
            #expect(shown.stdout == set.stdout)

            let json = try object(try blobstore(["--store", store, "config", "--json"], in: scratch))
            #expect(Set(json.keys) == ["capacity", "maxEntries", "maxAgeSeconds", "lowWater", "policy"])
            #expect(json["policy"] as? String == "s3fifo")
            #expect(json["capacity"] as? Int == 5_242_880)
            #expect(json["maxEntries"] is NSNull)
            #expect(json["maxAgeSeconds"] is NSNull)
            #expect(json["lowWater"] as? Double == 0.9)

            #expect(
                try blobstore(["--store", store, "config", "--max-entries", "100", "--max-age", "7d"], in: scratch)
                    .status == 0)
            let more = try object(try blobstore(["--store", store, "config", "--json"], in: scratch))
            #expect(more["capacity"] as? Int == 5_242_880)
            #expect(more["maxEntries"] as? Int == 100)
            #expect(more["maxAgeSeconds"] as? Double == 604_800)

            let removed = try blobstore(
                ["--store", store, "config", "--capacity", "none", "--low-water", "0.8", "--json"], in: scratch)
            #expect(removed.status == 0)
            let fewer = try object(removed)
            #expect(fewer["capacity"] is NSNull)
            #expect(fewer["maxEntries"] as? Int == 100)
            #expect(fewer["lowWater"] as? Double == 0.8)
        }
    }
}
