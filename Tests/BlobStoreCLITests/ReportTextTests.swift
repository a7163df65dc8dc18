import BlobStore
import BlobStoreRemote
import Foundation
import Testing

@testable import BlobStoreCLI

/// The human-readable reports of `compact`, `gc`, `verify` and `config`, from reports built by
/// hand (MaintenanceCLITests runs the commands against a real store).
@Suite struct ReportTextTests {
    private let corrupt = SHA256Digest(hex: String(repeating: "ab", count: 32))!
    private let missing = SHA256Digest(hex: String(repeating: "0f", count: 32))!

    private func damagedReport() -> VerifyReport {
        var report = VerifyReport()
        report.steps = [
            .init(name: "index", count: 1000, bytes: 90_000, seconds: 0.002),
            .init(name: "blobs", count: 999, bytes: 1_288_490_189, seconds: 3.9),
        ]
        report.entries = 1000
        report.referencedBlobs = 999
        report.blobsChecked = 999
        report.bytesChecked = 1_288_490_189
        report.corruptBlobs = [
            .init(digest: corrupt, path: "blobs/sha256/ab/abab", reason: "digest mismatch", keys: ["k1", "k 2"])
        ]
        report.missingBlobs = [.init(digest: missing, keys: ["gone"])]
        report.strayFiles = ["blobs/sha256/zz"]
        report.unreferencedBlobs = 2
        report.unreferencedBytes = 4096
        report.seconds = 3.95
        return report
    }

    @Test func verifyListsEveryStepAndEveryProblemWithItsKeys() {
        let expected = """
            step           items       bytes      time
            index           1000      88 KiB       2ms
            blobs            999     1.2 GiB      3.9s

            entries:        1000 (999 distinct blobs)
            blobs checked:  999, 1.2 GiB
            corrupt blobs:  1
              \(corrupt.hex)  blobs/sha256/ab/abab  (digest mismatch)
                key 'k1'
                key 'k 2'
            missing blobs:  1
              \(missing.hex)
                key 'gone'
            stray files:    1
              blobs/sha256/zz
            unreferenced:   2 blobs, 4.0 KiB (garbage, not damage: 'blobstore gc' deletes it)
            journal:        clean
            result:         damaged
            time:           3.9s

            """
        #expect(Runner.summary(of: damagedReport(), repaired: false) == expected)
        #expect(Runner.problems(in: damagedReport()) == ["1 corrupt blob", "1 missing blob", "1 stray file"])
    }

    @Test func verifyWithRepairSaysWhatItDid() {
        var report = damagedReport()
        report.quarantinedBlobs = 1
        report.quarantinedStrayFiles = 1
        report.droppedEntries = 3
        let text = Runner.summary(of: report, repaired: true)
        #expect(text.contains("\nrepair:         1 blob and 1 stray file moved to quarantine/, 3 entries dropped\n"))
        #expect(text.contains("\nresult:         repaired\n"))
    }

    @Test func aCleanStoreAndAJournalDamagedAtOpen() {
        var report = VerifyReport()
        report.unreferencedBlobs = 1
        report.unreferencedBytes = 10
        #expect(report.isClean)
        #expect(Runner.problems(in: report).isEmpty)
        #expect(Runner.summary(of: report, repaired: false).contains("\nresult:         clean\n"))
        #expect(Runner.summary(of: report, repaired: false).contains("\nunreferenced:   1 blob, 10 B (garbage"))

        report.recovery.droppedBytes = 120
        report.recovery.corruptionOffset = 4096
        report.recovery.corruptionReason = "checksum mismatch"
        report.recovery.quarantinedJournal = "quarantine/journal-1-abc"
        #expect(
            Runner.summary(of: report, repaired: false).contains(
                "\njournal:        damaged at offset 4096 (checksum mismatch); 120 bytes of records dropped and saved "
                    + "in quarantine/journal-1-abc\n"))
        #expect(Runner.problems(in: report) == ["a damaged journal"])

        report.recovery.manifestDamage = "checksum mismatch"
        report.recovery.manifestEntries = 7
        #expect(!report.isClean)
        #expect(
            Runner.summary(of: report, repaired: false).contains(
                "\njournal:        the manifest was damaged (checksum mismatch); 7 entries were read before it\n"))
        #expect(Runner.problems(in: report) == ["a damaged manifest", "a damaged journal"])
    }

    @Test func gcShowsTheLimitsItAppliedAndADryRunSaysSo() {
        var report = GarbageCollectionReport(dryRun: true)
        report.leastRecentlyUsedEntries = 31
        report.expiredEntries = 1
        report.evictedBytes = 32 * 102_400
        report.entriesAfter = 9
        report.storedBytesAfter = 9 * 102_400
        report.blobsKeptYoung = 2
        let text = Runner.summary(
            of: report, limits: EvictionLimits(capacity: 1 << 20, maxAge: .seconds(5400)), grace: .seconds(3600))
        #expect(
            text == """
                Dry run: nothing was changed. A real run would do this:
                limits:          capacity 1.0 MiB, max entries none, max age 1h 30m, low water 0.9, policy s3fifo
                grace period:    1h
                evicted:         32 entries, 3.1 MiB (1 expired, 0 idle too long, 31 least recently used)
                blobs deleted:   0, 0 B
                blobs kept:      2 unreferenced, younger than the grace period
                packs:           0 rewritten (0 needles moved), 0 deleted, 0 B
                temporary files: 0 deleted, 0 B
                old generations: 0 files deleted
                after:           9 entries, 900 KiB stored
                time:            0ms

                """)
        report.dryRun = false
        #expect(
            Runner.summary(of: report, limits: EvictionLimits(), grace: .zero).hasPrefix(
                "limits:          capacity none, max entries none, max age none, low water 0.9, policy s3fifo\n"))
        report.leastRecentlyUsedEntries = 0
        report.chosenByPolicyEntries = 31
        #expect(
            Runner.summary(of: report, limits: EvictionLimits(capacity: 1 << 20, policy: .sieve), grace: .zero)
                .contains(
                    "evicted:         32 entries, 3.1 MiB (1 expired, 0 idle too long, 0 least recently used, 31 chosen by sieve)\n"
                ))
    }

    @Test func compactionReport() {
        let report = CompactionReport(
            generationBefore: 1, generationAfter: 2, entries: 1, manifestBytes: 90, oldManifestBytes: 0,
            oldJournalBytes: 80_000, blobsDeleted: 999, blobBytesDeleted: 9990, seconds: 0.012)
        #expect(
            Runner.summary(of: report) == """
                generation:     1 -> 2
                entries:        1
                manifest:       90 B
                replaced:       0 B manifest, 78 KiB journal
                blobs deleted:  999, 9.8 KiB
                time:           12ms

                """)
    }

    /// Every size in `stats` is shown for people and exactly; `--json` keeps the raw integers.
    @Test func statsShowSizesForPeopleAndExactly() throws {
        let json = """
            {"entries": 2, "distinctBlobs": 1, "logicalBytes": 1234567, "storedBytes": 4096, "journalBytes": 140,
             "manifestBytes": 0, "generation": 3, "hits": 0, "misses": 0, "repairs": 0, "damagedReads": 0,
             "allProcesses": {"hits": 12, "misses": 4, "evictions": 1}}
            """
        let stats = try JSONDecoder().decode(StoreStats.self, from: Data(json.utf8))
        #expect(
            Runner.summary(of: stats) == """
                entries:        2
                distinct blobs: 1
                logical bytes:  1.2 MiB (1234567 bytes)
                stored bytes:   4.0 KiB (4096 bytes)
                saved by dedup: 1.2 MiB (1230471 bytes)
                journal bytes:  140 B (140 bytes)
                manifest bytes: 0 B (0 bytes)
                generation:     3
                hits:           12
                misses:         4
                hit ratio:      75.0%
                evictions:      1 (0 expired, 0 idle too long, 1 over a limit)

                """)
        var noUsage = stats
        noUsage.allProcesses = nil
        #expect(!Runner.summary(of: noUsage).contains("hits"))
        noUsage.allProcesses = StoreUsage()
        #expect(Runner.summary(of: noUsage).contains("hit ratio:      none\n"))
        var remote = RemoteStats()
        remote.hits = 1
        remote.bytesUp = 0
        remote.bytesDown = 300_141
        let text = Runner.remoteSummary(of: remote)
        #expect(text.hasPrefix("remote hits:            1\n"))
        #expect(
            text.hasSuffix("remote bytes up:        0 B (0 bytes)\nremote bytes down:      293 KiB (300141 bytes)\n"))
    }

    @Test func configShowsEachLimitOrNone() {
        #expect(
            Runner.summary(of: EvictionLimits(capacity: 5 << 20, maxAge: .seconds(604_800))) == """
                capacity:       5.0 MiB (5242880 bytes)
                max entries:    none
                max age:        7d (604800 seconds)
                low water:      0.9
                policy:         s3fifo

                """)
        #expect(
            Runner.summary(
                of: EvictionLimits(maxEntries: 10_000, maxAge: .milliseconds(1500), lowWater: 0.75, policy: .s3fifo))
                    == """
                    capacity:       none
                    max entries:    10000
                    max age:        1.5s (1.5 seconds)
                    low water:      0.75
                    policy:         s3fifo

                    """)
    }
}
