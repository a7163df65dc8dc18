import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Testing

/// Opens a store written by the 0.1 code (store format 1, journal and manifest version 1) and
/// reads every value back: whatever a later format changes, a format-1 store must still open
/// with every entry intact.
///
/// ## The fixture
///
/// `Fixtures/format1-store/` is a store as the 0.1 code left it (commit c8b0f42), copied file for
/// file: `CURRENT` (generation 2, names `manifest-2`), `manifest-2` (13 entries, written by a
/// compaction), `journal-2` (7 records written after it: 4 puts, a remove, an evict, an access),
/// `LOCK` (4096 bytes, its change counter as the writer left it), `CACHEDIR.TAG` and 13 blobs
/// under `blobs/sha256/`. No `limits`, no `quarantine/`. Git keeps neither empty directories
/// (`tmp/`) nor modes, so ``copyFixture(to:)`` recreates `tmp/` and sets the modes the store
/// writes (directories 0700, files at the top 0600, blobs 0400): opening refuses a store whose
/// files the group or every user may write. The fixture is only ever opened in a copy, since
/// opening and reading write to the store.
///
/// What it holds (``live`` lists every live entry with its digest and times):
///
/// - values of 0, 1, 100, 4096, 5000, 70 KiB and 300 KiB bytes, and a key of raw bytes that are
///   not UTF-8 (`00 01 80 fe ff`), all in the manifest;
/// - `hundred/with-metadata`: metadata with a NUL and bytes over 0x7f (manifest);
/// - `expires/2100`: expires 2100-01-01T00:00:00Z (manifest);
/// - `journal/metadata-and-expiry`: metadata and an expiry with milliseconds (journal);
/// - `dedup/first` (manifest) and `dedup/second` (journal): the same 2048 bytes, one blob;
/// - `overwritten`: put, then put again before the compaction (the manifest has the second);
/// - `overwritten-after-compaction`: in the manifest, put again in the journal;
/// - `removed`: put, then removed before the compaction (absent from the manifest);
/// - `removed-after-compaction`: in the manifest, removed in the journal;
/// - `expired`: put in the journal with an expiry in 2001, then evicted by `collectGarbage()`
///   (an evict record);
/// - `page` was read before the compaction (its last access is in the manifest) and
///   `seventy-kib` after it (an access record in the journal).
///
/// The values are ``fixtureBytes(_:seed:)`` of the sizes and seeds in ``live``.
///
/// ## How it was made
///
/// In a worktree of the 0.1 code, with a throwaway test that was not committed:
///
/// ```sh
/// git -C /work/main worktree add /tmp/v1tree c8b0f42
/// # save the program below as /tmp/v1tree/Tests/BlobStoreTests/MakeFormat1Fixture.swift
/// cd /tmp/v1tree && swift build --build-tests
/// FIXTURE_OUT=/tmp/fixture-out/format1-store swift test --skip-build --filter makeFormat1Fixture
/// cp -R /tmp/fixture-out/format1-store /work/main/Tests/BlobStoreTests/Fixtures/
/// find /work/main/Tests/BlobStoreTests/Fixtures/format1-store -type d -empty -delete  # tmp/, emptied shards
/// git -C /work/main worktree remove --force /tmp/v1tree
/// ```
///
/// ```swift
/// import Foundation
/// import Glibc
/// import Testing
/// import BlobStore
///
/// func fixtureBytes(_ count: Int, seed: Int) -> Data {
///     Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 7) &+ seed &* 101) })
/// }
///
/// @Test func makeFormat1Fixture() throws {
///     let path = ProcessInfo.processInfo.environment["FIXTURE_OUT"]!
///     let year2100 = Date(timeIntervalSince1970: 4_102_444_800)  // 2100-01-01T00:00:00Z
///     let store = try BlobStore(at: path, configuration: .init(durability: .none))
///     // Generation 1: everything here ends up in manifest-2.
///     try store.put(fixtureBytes(0, seed: 0), for: "empty")
///     try store.put(fixtureBytes(1, seed: 1), for: "one-byte")
///     try store.put(
///         fixtureBytes(100, seed: 2), for: "hundred/with-metadata",
///         metadata: Data("content-type=application/octet-stream\n".utf8) + Data([0x00, 0xFF, 0x7F]))
///     try store.put(fixtureBytes(4096, seed: 3), for: "page")
///     try store.put(fixtureBytes(5000, seed: 4), for: "page-plus")
///     try store.put(fixtureBytes(70 * 1024, seed: 5), for: "seventy-kib")
///     try store.put(fixtureBytes(300 * 1024, seed: 6), for: "three-hundred-kib")
///     try store.put(fixtureBytes(2048, seed: 7), for: "dedup/first")
///     try store.put(fixtureBytes(64, seed: 8), for: "expires/2100", expires: year2100)
///     try store.put(fixtureBytes(10, seed: 15), for: StoreKey(bytes: [0x00, 0x01, 0x80, 0xFE, 0xFF]))
///     try store.put(fixtureBytes(300, seed: 9), for: "overwritten")
///     try store.put(fixtureBytes(333, seed: 10), for: "overwritten")
///     try store.put(fixtureBytes(200, seed: 11), for: "removed")
///     #expect(try store.remove("removed"))
///     try store.put(fixtureBytes(250, seed: 12), for: "overwritten-after-compaction")
///     try store.put(fixtureBytes(150, seed: 14), for: "removed-after-compaction")
///     usleep(20_000)
///     #expect(try store.value(for: "page") == fixtureBytes(4096, seed: 3))  // an access record
///     try store.flush()
///     try store.compact()
///     // Generation 2's journal.
///     try store.put(fixtureBytes(2048, seed: 7), for: "dedup/second")  // same content as dedup/first
///     try store.put(fixtureBytes(260, seed: 13), for: "overwritten-after-compaction")
///     #expect(try store.remove("removed-after-compaction"))
///     try store.put(
///         fixtureBytes(777, seed: 16), for: "journal/metadata-and-expiry", metadata: Data("journal metadata".utf8),
///         expires: Date(timeIntervalSince1970: 4_102_444_800.123))
///     try store.put(fixtureBytes(20, seed: 17), for: "expired", expires: Date(timeIntervalSince1970: 1_000_000_000))
///     try store.collectGarbage()  // evicts "expired": an evict record
///     usleep(20_000)
///     #expect(try store.value(for: "seventy-kib") == fixtureBytes(70 * 1024, seed: 5))  // an access record
///     try store.flush()
///     try store.close()
/// }
/// ```
///
/// The program also printed each entry (digest, times in milliseconds, metadata) and
/// `stats()` (14 entries, 13 distinct blobs, 393,617 logical and 391,569 stored bytes) and
/// `verify()` (clean, no unreferenced blobs), which are the expectations below.
@Suite struct FormatUpgradeTests {
    /// One live entry of the fixture, as the 0.1 code listed it.
    struct Expected {
        var key: StoreKey
        var size: Int
        var seed: Int
        var digest: String
        /// Milliseconds since the epoch.
        var created: Int64
        var lastAccess: Int64
        var expires: Int64? = nil
        var metadata = Data()

        var value: Data { FormatUpgradeTests.fixtureBytes(size, seed: seed) }
    }

    /// The bytes of every value in the fixture.
    static func fixtureBytes(_ count: Int, seed: Int) -> Data {
        Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 7) &+ seed &* 101) })
    }

    /// Every live entry, sorted by key bytes as `entries()` lists them.
    static let live: [Expected] = [
        Expected(
            key: StoreKey(bytes: [0x00, 0x01, 0x80, 0xFE, 0xFF]), size: 10, seed: 15,
            digest: "b338eb7118e40267f59420664dc48a8f1a8e103da2c40ce88237bbdf2533f2fc",
            created: 1_796_114_358_522, lastAccess: 1_796_114_358_522),
        Expected(
            key: "dedup/first", size: 2048, seed: 7,
            digest: "9ddc87f49129cf381e5a4a267cda8f913f5515ca6f5720b13f06e80bbcbe9646",
            created: 1_796_114_358_521, lastAccess: 1_796_114_358_521),
        Expected(
            key: "dedup/second", size: 2048, seed: 7,
            digest: "9ddc87f49129cf381e5a4a267cda8f913f5515ca6f5720b13f06e80bbcbe9646",
            created: 1_796_114_358_546, lastAccess: 1_796_114_358_546),
        Expected(
            key: "empty", size: 0, seed: 0,
            digest: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            created: 1_796_114_358_474, lastAccess: 1_796_114_358_474),
        Expected(
            key: "expires/2100", size: 64, seed: 8,
            digest: "b39257f74932a42d1aca002d36020c9395b820c8a19cb8a24e7446b3916b5803",
            created: 1_796_114_358_522, lastAccess: 1_796_114_358_522, expires: 4_102_444_800_000),
        Expected(
            key: "hundred/with-metadata", size: 100, seed: 2,
            digest: "2f8e28c26f44adecd3ebf8ff48f35e325524259aa38ecc1efceac9062f2ef2c9",
            created: 1_796_114_358_475, lastAccess: 1_796_114_358_475,
            metadata: Data("content-type=application/octet-stream\n".utf8) + Data([0x00, 0xFF, 0x7F])),
        Expected(
            key: "journal/metadata-and-expiry", size: 777, seed: 16,
            digest: "4164011cf31d72368833210d91006a56637bb6868774b49f3d8e23f73f62a6c9",
            created: 1_796_114_358_547, lastAccess: 1_796_114_358_547, expires: 4_102_444_800_123,
            metadata: Data("journal metadata".utf8)),
        Expected(
            key: "one-byte", size: 1, seed: 1,
            digest: "3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea",
            created: 1_796_114_358_474, lastAccess: 1_796_114_358_474),
        Expected(
            key: "overwritten", size: 333, seed: 10,
            digest: "f72b7cbe793df5b10df1f9b9786d34b912816d631752d11512a13451d046e81e",
            created: 1_796_114_358_522, lastAccess: 1_796_114_358_522),
        Expected(
            key: "overwritten-after-compaction", size: 260, seed: 13,
            digest: "e726f94fc63be1f3fe97787782b21b3123da9f5d1bf779ae32119831aabdf070",
            created: 1_796_114_358_547, lastAccess: 1_796_114_358_547),
        Expected(
            key: "page", size: 4096, seed: 3,
            digest: "995f74de0efb0cc75b940a7424eec9c9a330b7ff1c309b976c31b3695bbf57fb",
            created: 1_796_114_358_475, lastAccess: 1_796_114_358_543),
        Expected(
            key: "page-plus", size: 5000, seed: 4,
            digest: "0d097b2dbdf25cdb409b0fae8376e398476b72861e9a0148bcdbf0263b965666",
            created: 1_796_114_358_476, lastAccess: 1_796_114_358_476),
        Expected(
            key: "seventy-kib", size: 70 * 1024, seed: 5,
            digest: "0b5410da1fa2bcec1735d8d14b11c27c06a5a074a5ba75e94196996b3811cca6",
            created: 1_796_114_358_485, lastAccess: 1_796_114_358_568),
        Expected(
            key: "three-hundred-kib", size: 300 * 1024, seed: 6,
            digest: "391438e7298ff7ad0741d5c5eeaec8ab86a3be5464e3b26c7422836462815d79",
            created: 1_796_114_358_521, lastAccess: 1_796_114_358_521),
    ]

    /// Keys the fixture's history wrote and then dropped: removed before and after the
    /// compaction, and evicted as expired.
    static let absent: [StoreKey] = ["removed", "removed-after-compaction", "expired"]

    /// `Fixtures/format1-store/` next to this file (no package resources needed).
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/format1-store").path

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// Copies the fixture to `destination` (which must not exist) as the store had it on disk:
    /// the empty `tmp/` git does not keep, directories 0700, files at the top 0600, blobs 0400.
    func copyFixture(to destination: String) throws {
        try FileManager.default.copyItem(atPath: Self.fixture, toPath: destination)
        try FileManager.default.createDirectory(atPath: destination + "/tmp", withIntermediateDirectories: false)
        #expect(chmod(destination, 0o700) == 0)
        for relative in allPaths(under: destination) {
            let path = destination + "/" + relative
            let mode: mode_t =
                relative.hasSuffix("/") ? 0o700 : relative.hasPrefix("blobs/") ? 0o400 : 0o600
            #expect(chmod(path, mode) == 0, "chmod \(path)")
        }
    }

    @Test func theFixtureIsAFormat1Store() throws {
        let current = String(decoding: readBytes(Self.fixture + "/CURRENT"), as: UTF8.self)
        #expect(current == "blobstore-format 1\ngeneration 2\nmanifest manifest-2\n")
        let journal = readBytes(Self.fixture + "/journal-2")
        #expect(Array(journal[0..<8]) == Array("BLOBJRNL".utf8))
        #expect(Array(journal[8..<12]) == [1, 0, 0, 0], "journal format version 1")
        let manifest = readBytes(Self.fixture + "/manifest-2")
        #expect(Array(manifest[8..<12]) == [1, 0, 0, 0], "manifest format version 1")
        let blobs = regularFiles(under: Self.fixture + "/blobs").map { String($0.split(separator: "/").last!) }
        #expect(Set(blobs) == Set(Self.live.map(\.digest)))
    }

    @Test func aFormat1StoreOpensWithEveryValue() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("store")
            try copyFixture(to: path)
            try withStore(path) { store throws in
                #expect(store.recoveryReport.isClean)
                // Before any read: the times as the 0.1 code recorded them.
                try checkEntries(store, exactLastAccess: true)
                try checkValues(store)
                try checkStats(store)
                let report = try store.verify()
                #expect(report.isClean, "\(report)")
                #expect(report.corruptBlobs.isEmpty && report.missingBlobs.isEmpty && report.strayFiles.isEmpty)
                #expect(report.entries == Self.live.count)
                #expect(report.referencedBlobs == Set(Self.live.map(\.digest)).count)
                // The store goes on taking writes.
                try store.put(Data("after the upgrade"), for: "new")
            }
            // And a second open reads the fixture and what the first one wrote on top (the
            // access times of its reads too).
            try withStore(path) { store throws in
                #expect(store.recoveryReport.isClean)
                #expect(try store.value(for: "new") == Data("after the upgrade"))
                #expect(try store.remove("new"))
                try checkEntries(store, exactLastAccess: false)
                try checkValues(store)
                try checkStats(store)
                #expect(try store.verify().isClean)
            }
        }
    }

    /// `entries()` lists exactly the live keys with their sizes, digests, times, expiry and
    /// metadata; `info(for:)` agrees.
    private func checkEntries(_ store: BlobStore, exactLastAccess: Bool) throws {
        let entries = try store.entries()
        #expect(entries.map(\.key) == Self.live.map(\.key))
        for (entry, expected) in zip(entries, Self.live) {
            #expect(entry.size == UInt64(expected.size), "\(expected.key)")
            #expect(entry.digest.hex == expected.digest, "\(expected.key)")
            #expect(entry.metadata == expected.metadata, "\(expected.key)")
            #expect(entry.expires.map(Self.milliseconds) == expected.expires, "\(expected.key)")
            #expect(Self.milliseconds(entry.created) == expected.created, "\(expected.key)")
            if exactLastAccess {
                #expect(Self.milliseconds(entry.lastAccess) == expected.lastAccess, "\(expected.key)")
            } else {
                #expect(Self.milliseconds(entry.lastAccess) >= expected.lastAccess, "\(expected.key)")
            }
            #expect(try store.info(for: expected.key) == entry, "\(expected.key)")
        }
    }

    /// Every live key reads back with exactly its bytes (by key and by digest); the dropped
    /// keys are absent.
    private func checkValues(_ store: BlobStore) throws {
        for expected in Self.live {
            let value = try store.value(for: expected.key)
            #expect(value == expected.value, "\(expected.key)")
            #expect(value.map { SHA256Hasher.hash($0).hex } == expected.digest, "\(expected.key)")
            #expect(try store.contains(expected.key), "\(expected.key)")
            let digest = try #require(SHA256Digest(hex: expected.digest))
            #expect(try store.blob(digest) == expected.value, "\(expected.key)")
        }
        for key in Self.absent {
            #expect(try store.value(for: key) == nil, "\(key)")
            #expect(try !store.contains(key), "\(key)")
            #expect(try store.info(for: key) == nil, "\(key)")
        }
    }

    /// Entry, blob and byte counts: 14 entries, 13 distinct blobs (the dedup pair shares one),
    /// 393,617 logical bytes, 425,984 bytes of disk in 4 KiB blocks.
    private func checkStats(_ store: BlobStore) throws {
        let stats = try store.stats()
        var distinct: [String: Int] = [:]
        for expected in Self.live { distinct[expected.digest] = expected.size }
        #expect(stats.entries == Self.live.count)
        #expect(stats.distinctBlobs == distinct.count)
        #expect(stats.logicalBytes == UInt64(Self.live.reduce(0) { $0 + $1.size }))
        // Format 1's blobs are loose files: each takes whole 4 KiB blocks (an empty one none).
        let allocated = distinct.values.reduce(0) { $0 + ($1 + 4095) / 4096 * 4096 }
        #expect(stats.storedBytes == UInt64(allocated))
        #expect(stats.entries == 14 && stats.distinctBlobs == 13)
        #expect(stats.logicalBytes == 393_617 && stats.storedBytes == 425_984)
    }
}
