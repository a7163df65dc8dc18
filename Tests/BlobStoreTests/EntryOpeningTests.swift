import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStore
@testable import BlobStoreCache

/// `entryOpening(for:readingUpTo:)` hands a large value stored whole back opened and not yet
/// verified, so that an event loop can have another thread hash it: the verification, the hit
/// and the repair of damage all happen in `UnverifiedBlob.verified()`.
@Suite("Reading: a large value opened, verified later")
struct EntryOpeningTests {
    private let large = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })

    private static func blobFile(_ path: String, _ digest: SHA256Digest) -> String {
        path + "/blobs/sha256/" + String(digest.hex.prefix(2)) + "/" + digest.hex
    }

    @Test("A large value comes back unverified, a small one read; the verified handle reads the value")
    func largeUnverifiedSmallRead() throws {
        try withTemporaryDirectory { dir in
            try withStore(dir.child("s"), looseOnly) { store in
                let digest = try store.put(large, for: "large")
                try store.put(Data("small"), for: "small")
                guard case .read(.value(let small))? = try store.entryOpening(for: "small", readingUpTo: 100_000) else {
                    Issue.record("the small value is not read into memory")
                    return
                }
                #expect(small.value == Data("small"))
                guard case .unverified(let info, let blob)? = try store.entryOpening(for: "large", readingUpTo: 100_000)
                else {
                    Issue.record("the large value is not opened unverified")
                    return
                }
                #expect(info.digest == digest && info.size == UInt64(large.count))
                let handle = try #require(try blob.verified())
                #expect(try handle.readToEnd() == large)
                // Verified once: a second call gives the same handle back.
                #expect(try blob.verified() === handle)
                #expect(try store.stats().hits == 2)
                #expect(try store.entryOpening(for: "absent", readingUpTo: 100_000) == nil)
            }
        }
    }

    @Test("Damage is found by verified(), not by the opening: the entry is then dropped, never read")
    func damageFoundWhenVerified() throws {
        try withTemporaryDirectory { dir in
            let path = dir.child("s")
            try withStore(path, looseOnly) { store in
                let digest = try store.put(large, for: "large")
                let file = Self.blobFile(path, digest)
                chmod(file, 0o600)
                let handle = try #require(FileHandle(forUpdatingAtPath: file))
                try handle.seek(toOffset: 150_000)
                try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
                try handle.close()
                guard case .unverified(_, let blob)? = try store.entryOpening(for: "large", readingUpTo: 100_000) else {
                    Issue.record("the damaged value is not opened unverified")
                    return
                }
                #expect(try store.stats().damagedReads == 0, "the opening does not read the value")
                #expect(try blob.verified() == nil)
                let stats = try store.stats()
                #expect(stats.damagedReads == 1 && stats.hits == 0, "\(stats)")
                #expect(try store.entry(for: "large") == nil)
                #expect(!FileManager.default.fileExists(atPath: file), "moved to quarantine/")
            }
        }
    }

    @Test("A verification that failed is not run again: a second call throws what the first threw")
    func failureIsRemembered() throws {
        try withTemporaryDirectory { dir in
            let path = dir.child("s")
            let store = try BlobStore(at: path, configuration: looseOnly)
            let digest = try store.put(large, for: "large")
            guard case .unverified(_, let blob)? = try store.entryOpening(for: "large", readingUpTo: 100_000) else {
                Issue.record("the value is not opened unverified")
                return
            }
            // Damaged, in a store closed meanwhile: the repair the damage calls for fails.
            let handle = try #require(FileHandle(forUpdatingAtPath: Self.blobFile(path, digest)))
            try handle.seek(toOffset: 10)
            try handle.write(contentsOf: Data([0xAB, 0xCD]))
            try handle.close()
            try store.close()
            let first = #expect(throws: BlobStoreError.self) { try blob.verified() }
            let second = #expect(throws: BlobStoreError.self) { try blob.verified() }
            #expect(first?.code == .closed && second?.code == .closed, "\(String(describing: second))")
        }
    }

    @Test("A memory tier's hit is read; a value only on disk is opened unverified through the tier")
    func throughTheMemoryTier() throws {
        try withTemporaryDirectory { dir in
            let disk = try dir.store("s", looseOnly)
            let cached = CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 1 << 20))
            try cached.put(large, for: "large", metadata: Data(), expires: nil, placement: .memoryAndDisk)
            guard case .read(.value(let hit))? = try cached.entryOpening(for: "large", readingUpTo: 100_000) else {
                Issue.record("the memory tier's copy is not read")
                return
            }
            #expect(hit.value == large && hit.tier == .memory)
            try disk.put(large, for: "disk only")
            guard case .unverified(_, let blob)? = try cached.entryOpening(for: "disk only", readingUpTo: 100_000)
            else {
                Issue.record("the disk's large value is not opened unverified")
                return
            }
            #expect(try blob.verified()?.readToEnd() == large)
        }
    }
}
