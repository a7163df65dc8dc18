import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore

@Suite struct StoreTests {
    @Test func putThenGetReturnsTheSameBytesAndDigest() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let value = Data("hello, blobs")
                let digest = try store.put(value, for: "https://example.com/a")
                #expect(digest == SHA256Hasher.hash(value))
                #expect(try store.value(for: "https://example.com/a") == value)
                #expect(try store.value(for: "https://example.com/b") == nil)
                let stats = try store.stats()
                #expect(stats.hits == 1)
                #expect(stats.misses == 1)
            }
        }
    }

    @Test func identicalContentIsStoredOnce() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = Data(String(repeating: "same bytes ", count: 1000))
            try withStore(path) { store throws in
                try store.put(value, for: "one")
                try store.put(value, for: "two")
                try store.put(Data("other"), for: "three")
                let stats = try store.stats()
                #expect(stats.entries == 3)
                #expect(stats.distinctBlobs == 2)
                #expect(stats.logicalBytes == UInt64(value.count * 2 + 5))
                // One pack: its header and two needles (size and digest, then the bytes).
                #expect(stats.storedBytes == UInt64(24 + (36 + value.count) + (36 + 5)))
            }
            #expect(regularFiles(under: path + "/blobs").isEmpty)
            #expect(readBytes(path + "/packs/pack-1").count == 24 + (36 + value.count) + (36 + 5))
            #expect(regularFiles(under: path + "/tmp").isEmpty)
            // Loose, each distinct content is one file, counted in whole 4 KiB blocks.
            let loose = dir.child("loose")
            try withStore(loose, looseOnly) { store throws in
                try store.put(value, for: "one")
                try store.put(value, for: "two")
                try store.put(Data("other"), for: "three")
                #expect(try store.stats().storedBytes == 12288 + 4096)
            }
            #expect(regularFiles(under: loose + "/blobs").count == 2)
        }
    }

    @Test func valuesSurviveReopenInEveryDurabilityMode() throws {
        for durability in Durability.allCases {
            try withTemporaryDirectory { dir throws in
                let path = dir.child("s")
                let configuration = BlobStore.Configuration(durability: durability)
                try withStore(path, configuration) { store throws in
                    for index in 0..<20 { try store.put(Data("value \(index)"), for: StoreKey("k\(index)")) }
                    try store.put(Data("replaced"), for: "k3")
                    try store.remove("k4")
                }
                try withStore(path, configuration) { store throws in
                    #expect(try store.value(for: "k0") == Data("value 0"))
                    #expect(try store.value(for: "k3") == Data("replaced"))
                    #expect(try store.value(for: "k4") == nil)
                    #expect(try store.stats().entries == 19)
                    #expect(store.recoveryReport.recordsReplayed == 22)
                    #expect(store.recoveryReport.isClean)
                }
            }
        }
    }

    @Test func overwriteAndRemoveKeepTotalsRight() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                try store.put(Data("aaaa"), for: "k")
                try store.put(Data("bb"), for: "k")
                var stats = try store.stats()
                #expect(stats.entries == 1)
                #expect(stats.logicalBytes == 2)
                #expect(stats.storedBytes == 24 + (36 + 4) + (36 + 2), "the pack, dead needle included")
                #expect(try store.remove("k"))
                #expect(try !store.remove("k"))
                stats = try store.stats()
                #expect(stats.entries == 0)
                #expect(stats.distinctBlobs == 0)
                #expect(stats.logicalBytes == 0)
            }
        }
    }

    @Test func emptyValueIsAValue() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                try store.put(Data(), for: "empty")
                #expect(try store.value(for: "empty") == Data())
                #expect(try store.contains("empty"))
                #expect(try store.info(for: "empty")?.size == 0)
            }
        }
    }

    /// Keys that would escape the store or hit a special name if a key were ever a path: every
    /// one round-trips exactly, nothing is created outside the store, and every blob file is
    /// named by its digest.
    @Test func keysOfAnyBytesAreSafe() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let keys: [StoreKey] = [
                "a/b/c", "../../../etc/passwd", "/absolute/path", StoreKey(bytes: [0, 0, 47, 46, 46]),
                StoreKey(bytes: [0xff, 0xfe, 0x80]), "", StoreKey(bytes: [UInt8](repeating: 0x2f, count: 1 << 20)),
                "../x", "..", ".", "/", "/etc/passwd", "~/x", "blobs/sha256/../../CURRENT", "CURRENT", "LOCK",
                "journal-1", "tmp/../../x", "x\0y", StoreKey(bytes: Array("a\0/../b".utf8)), StoreKey(bytes: [0]),
                "line\nbreak", "C:\\Windows\\system32", StoreKey(String(repeating: "../", count: 2000) + "x"),
            ]
            let passwd = try FileManager.default.attributesOfItem(atPath: "/etc/passwd")
            let before = allPaths(under: dir.path)
            try withStore(path, looseOnly) { store throws in
                for (index, key) in keys.enumerated() { try store.put(Data("v\(index)"), for: key) }
            }
            try withStore(path) { store throws in
                for (index, key) in keys.enumerated() { #expect(try store.value(for: key) == Data("v\(index)")) }
                #expect(try store.entries().count == keys.count)
                try store.compact()
            }
            try withStore(path) { store throws in
                for (index, key) in keys.enumerated() { #expect(try store.value(for: key) == Data("v\(index)")) }
                #expect(try store.entries().map(\.key) == keys.sorted())
            }
            // Nothing outside the store, and only the store's own names inside it.
            let created = allPaths(under: dir.path).subtracting(before)
            #expect(created.allSatisfy { $0.hasPrefix("s/") })
            let top = Set(created.compactMap { $0.split(separator: "/").dropFirst().first.map(String.init) })
            #expect(top.allSatisfy(StoreLayout.isStoreFileName), "\(top.sorted())")
            #expect(
                try FileManager.default.attributesOfItem(atPath: "/etc/passwd") as NSDictionary == passwd
                    as NSDictionary)
            // Every file under blobs/ is named by a digest, in its shard, none after a key.
            let files = regularFiles(under: path + "/blobs")
            #expect(files.count == keys.count)
            for file in files {
                let parts = file.split(separator: "/")
                #expect(parts.count == 3 && parts[0] == "sha256" && parts[2].hasPrefix(parts[1]))
                #expect(SHA256Digest(hex: parts.last!) != nil && parts.last!.count == 64)
            }
        }
    }

    /// Keys that share whatever a naive cache named its files after: a prefix (sharding by the
    /// key's first bytes), the last path component (ImageCache), case (case-insensitive file
    /// systems), Unicode normalization (HFS+), a cut at NAME_MAX or PATH_MAX, a percent-encoding,
    /// and an MD5 (ISDiskCache named files by the key's MD5; these two keys are a published MD5
    /// collision). Each keeps its own value, through a reopen and a compaction.
    @Test func keysThatCollideUnderNaiveNamingStayApart() throws {
        let collisionA = hexBytes(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f8955ad340609f4b30283e488832571415a"
                + "085125e8f7cdc99fd91dbdf280373c5bd8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0"
                + "e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70")
        let collisionB = hexBytes(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f8955ad340609f4b30283e4888325f1415a"
                + "085125e8f7cdc99fd91dbd7280373c5bd8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0"
                + "e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70")
        #expect(collisionA != collisionB)
        #expect(MD5Hasher.hash(Data(collisionA)) == MD5Hasher.hash(Data(collisionB)))
        let prefix = String(repeating: "https://cdn.example.com/", count: 20)
        let long = String(repeating: "k", count: 4096)
        var keys: [StoreKey] = [
            StoreKey(bytes: collisionA), StoreKey(bytes: collisionB),
            "https://a.example/img.png", "https://b.example/img.png", "https://a.example/x/img.png",
            "URL", "url", "Url", "caf\u{E9}", "cafe\u{301}", "a b", "a%20b", "a+b", "a/b", "a_b", "a\\b",
            StoreKey(long + "1"), StoreKey(long + "2"), StoreKey(String(long.prefix(255)) + "1"),
            StoreKey(String(long.prefix(255)) + "2"),
        ]
        keys += (0..<300).map { StoreKey(prefix + "\($0)") }
        #expect(Set(keys).count == keys.count)
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                for (index, key) in keys.enumerated() { try store.put(Data("value \(index)"), for: key) }
                try store.compact()
            }
            try withStore(path) { store throws in
                for (index, key) in keys.enumerated() { #expect(try store.value(for: key) == Data("value \(index)")) }
                #expect(try store.stats().entries == keys.count)
                #expect(try store.stats().distinctBlobs == keys.count)
            }
        }
    }

    /// A key of exactly 16 MiB is a key like any other, in the journal and in a manifest; one
    /// byte more is refused by every kind of put, before anything is written.
    @Test func aKeyOfExactlySixteenMiBIsKeptAndOneByteMoreIsRefused() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let biggest = StoreKey(bytes: [UInt8](repeating: 0x2e, count: JournalFormat.maxKeySize))
            let tooBig = StoreKey(bytes: biggest.bytes + [0x2e])
            let source = dir.child("source")
            writeBytes(source, Array("streamed".utf8))
            try withStore(path) { store throws in
                try store.put(Data("at the limit"), for: biggest)
                for put in [
                    { try store.put(Data("x"), for: tooBig) },
                    { try store.put(contentsOf: URL(fileURLWithPath: source), for: tooBig) },
                    { try store.put(readingFrom: FileHandle(forReadingAtPath: source)!, for: tooBig) },
                ] as [() throws -> SHA256Digest] {
                    #expect { try put() } throws: { ($0 as? BlobStoreError)?.code == .tooLarge }
                }
                #expect(try store.entries().map(\.key) == [biggest])
                #expect(regularFiles(under: path + "/tmp").isEmpty)
            }
            try withStore(path) { store throws in
                #expect(try store.value(for: biggest) == Data("at the limit"))
                try store.compact()
            }
            try withStore(path) { store throws in
                #expect(try store.value(for: biggest) == Data("at the limit"))
                #expect(store.recoveryReport.manifestEntries == 1)
            }
        }
    }

    @Test func metadataAndExpiryAreKept() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let expires = Date(timeIntervalSinceNow: 3600)
            try withStore(path) { store throws in
                try store.put(Data("v"), for: "k", metadata: Data("etag=1"), expires: expires)
                try store.put(Data("old"), for: "expired", expires: Date(timeIntervalSinceNow: -1))
                #expect(try store.value(for: "expired") == nil)
                #expect(try !store.contains("expired"))
            }
            try withStore(path) { store throws in
                let info = try #require(try store.info(for: "k"))
                #expect(info.metadata == Data("etag=1"))
                #expect(abs(info.expires!.timeIntervalSince(expires)) < 0.002)
                #expect(info.digest == SHA256Hasher.hash(Data("v")))
                #expect(try store.info(for: "expired") == nil)
            }
        }
    }

    @Test("A touch if unchanged records the read only while digest, expiry and every metadata byte match")
    func touchIfUnchangedComparesEveryMetadataByte() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let metadata = Data((0..<700).map { UInt8(truncatingIfNeeded: $0) })
                try store.put(Data("v"), for: "k", metadata: metadata, expires: nil)
                try store.put(Data("v"), for: "bare", metadata: Data(), expires: nil)
                let digest = SHA256Hasher.hash(Data("v"))
                var lastByte = metadata
                lastByte[699] ^= 1
                #expect(try store.touch("k", ifUnchanged: digest, metadata: metadata, expires: nil))
                #expect(try !store.touch("k", ifUnchanged: digest, metadata: lastByte, expires: nil))
                #expect(try !store.touch("k", ifUnchanged: digest, metadata: metadata.dropLast(), expires: nil))
                #expect(try !store.touch("k", ifUnchanged: digest, metadata: Data(), expires: nil))
                #expect(try !store.touch("k", ifUnchanged: digest, metadata: metadata, expires: Date.distantFuture))
                #expect(
                    try !store.touch("k", ifUnchanged: SHA256Hasher.hash(Data("w")), metadata: metadata, expires: nil))
                #expect(try store.touch("bare", ifUnchanged: digest, metadata: Data(), expires: nil))
                #expect(try !store.touch("bare", ifUnchanged: digest, metadata: Data("x"), expires: nil))
            }
        }
    }

    @Test func entryHoldsComparesDigestAndEveryMetadataByte() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let metadata = Data((0..<700).map { UInt8(truncatingIfNeeded: $0) })
                try store.put(Data("v"), for: "k", metadata: metadata, expires: nil)
                try store.put(Data("v"), for: "gone", metadata: metadata, expires: Date(timeIntervalSinceNow: -1))
                let digest = SHA256Hasher.hash(Data("v"))
                var lastByte = metadata
                lastByte[699] ^= 1
                #expect(try store.entry("k", holds: digest, metadata: metadata) == true)
                #expect(try store.entry("k", holds: digest, metadata: lastByte) == false)
                #expect(try store.entry("k", holds: digest, metadata: metadata.dropLast()) == false)
                #expect(try store.entry("k", holds: SHA256Hasher.hash(Data("w")), metadata: metadata) == false)
                #expect(try store.entry("absent", holds: digest, metadata: metadata) == nil)
                #expect(try store.entry("gone", holds: digest, metadata: metadata) == nil)
            }
        }
    }

    @Test func accessTimesArePersistedAsHints() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path) { store throws in
                try store.put(Data("a"), for: "a")
                try store.put(Data("b"), for: "b")
                Thread.sleep(forTimeInterval: 0.01)
                _ = try store.value(for: "a")
            }
            try withStore(path) { store throws in
                let a = try #require(try store.info(for: "a"))
                let b = try #require(try store.info(for: "b"))
                #expect(a.lastAccess > a.created)
                #expect(b.lastAccess == b.created)
            }
        }
    }

    @Test func recencyOrderFollowsAccesses() {
        var index = StoreIndex()
        let digest = SHA256Hasher.hash(Data("x"))
        for (number, key) in ["a", "b", "c"].enumerated() {
            index.apply(
                .put(
                    .init(
                        key: StoreKey(key), digest: digest, size: 1, created: Int64(number), expires: nil, metadata: [])
                ))
        }
        index.apply(.access([.init(key: "a", time: 10)]))
        #expect(index.keysByRecency() == ["b", "c", "a"])
        #expect(index.blob(digest)?.referenceCount == 3)
        index.apply(.evict(key: "b", digest: SHA256Hasher.hash(Data("other"))))
        #expect(index.count == 3, "an eviction naming another digest changes nothing")
        index.apply(.evict(key: "b", digest: digest))
        #expect(index.keysByRecency() == ["c", "a"])
    }

    @Test func putBlobAndBlobAddressByContent() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                let digest = try store.putBlob(Data("content only"))
                #expect(try store.blob(digest) == Data("content only"))
                #expect(try store.contains(BlobStore.blobKey(digest)))
                #expect(try store.blob(SHA256Hasher.hash(Data("absent"))) == nil)
                let keyed = try store.put(Data("by key"), for: "k")
                #expect(try store.blob(keyed) == Data("by key"))
            }
        }
    }

    @Test func putFromFileStreamsAndFileURLReadsInPlace() throws {
        try withTemporaryDirectory { dir throws in
            let source = dir.child("source.bin")
            let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            try bytes.write(to: URL(fileURLWithPath: source))
            try withStore(dir.child("s")) { store throws in
                let digest = try store.put(contentsOf: URL(fileURLWithPath: source), for: "file")
                #expect(digest == SHA256Hasher.hash(bytes))
                let url = try #require(try store.fileURL(for: "file"))
                #expect(try Data(contentsOf: url) == bytes)
                #expect(fileMode(url.path) == 0o400)
                let handle = try #require(try store.fileHandle(for: "file"))
                #expect(try store.remove("file"))
                #expect(try handle.readToEnd() == bytes)
                try handle.close()
                let blobDigest = try store.putBlob(contentsOf: URL(fileURLWithPath: source))
                #expect(blobDigest == digest)
                #expect(try store.fileHandle(for: "file") == nil)
                #expect(try store.stats().distinctBlobs == 1)
            }
        }
    }

    @Test func entriesListsEveryLiveKeySorted() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                for key in ["b", "a", "c"] { try store.put(Data(key), for: StoreKey(key)) }
                try store.remove("c")
                #expect(try store.entries().map(\.key) == ["a", "b"])
            }
        }
    }

    @Test func asyncVariantsWork() async throws {
        let dir = TemporaryDirectory()
        defer { dir.cleanup() }
        let store = try BlobStore(at: dir.child("s"), configuration: fast)
        let digest = try await store.put(Data("async"), for: "k")
        #expect(try await store.value(for: "k") == Data("async"))
        #expect(try await store.blob(digest) == Data("async"))
        #expect(try await store.remove("k"))
        try await store.flush()
        try await store.close()
    }

    @Test func concurrentThreadsShareOneStore() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                DispatchQueue.concurrentPerform(iterations: 8) { worker in
                    for index in 0..<50 {
                        let key = StoreKey("w\(worker)-\(index)")
                        try! store.put(Data("\(worker)/\(index % 5)"), for: key)
                        #expect(try! store.value(for: key) == Data("\(worker)/\(index % 5)"))
                    }
                }
                #expect(try store.stats().entries == 400)
                #expect(try store.stats().distinctBlobs == 40)
            }
        }
    }

    @Test func openingTheSameStoreTwiceInOneProcessFailsClearly() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let first = try BlobStore(at: path, configuration: fast)
            #expect { try BlobStore(at: path + "/.", configuration: fast) } throws: {
                ($0 as? BlobStoreError)?.code == .busy && "\($0)".contains("already open")
            }
            try first.put(Data("x"), for: "k")
            try first.close()
            #expect { try first.value(for: "k") } throws: { ($0 as? BlobStoreError)?.code == .closed }
            let second = try BlobStore(at: path, configuration: fast)
            #expect(try second.value(for: "k") == Data("x"))
            try second.close()
        }
    }

    @Test func filesAreOwnerOnlyAndBlobsReadOnly() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, BlobStore.Configuration(durability: .always)) { store throws in
                try store.put(Data("x"), for: "k")
                try store.put(Data(repeating: 1, count: 64 << 10), for: "loose")
            }
            for name in ["LOCK", "CURRENT", "journal-1", "CACHEDIR.TAG", "packs/pack-1"] {
                #expect(fileMode(path + "/" + name) == 0o600, "\(name)")
            }
            for name in ["", "/blobs", "/blobs/sha256", "/tmp", "/packs"] {
                #expect(fileMode(path + name) == 0o700, "\(name)")
            }
            let blob = try #require(regularFiles(under: path + "/blobs").first)
            #expect(fileMode(path + "/blobs/" + blob) == 0o400)
            #expect(blob.split(separator: "/").map(\.count) == [6, 2, 64])
            #expect(
                String(decoding: readBytes(path + "/CACHEDIR.TAG").prefix(43), as: UTF8.self)
                    == "Signature: 8a477f597d28d172789f06886806bc55")
        }
    }
}
