import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// The typed results of a read (``ReadOutcome``) and of a failed system call (``SystemCall``).
struct ReadOutcomeTests {
    /// A key or digest the store never held is absent, not damaged.
    @Test func aMissingKeyOrBlobIsAbsent() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s")) { store throws in
                try store.put(Data("kept"), for: "k")
                #expect(try store.readEntry(for: "other").value == nil)
                guard case .absent = try store.readEntry(for: "other") else {
                    Issue.record("readEntry of a missing key")
                    return
                }
                guard case .absent = try store.openValue(for: "other") else {
                    Issue.record("openValue of a missing key")
                    return
                }
                guard case .absent = try store.openBlob(SHA256Hasher.hash(Data("never stored"))) else {
                    Issue.record("openBlob of a digest never stored")
                    return
                }
                #expect(try store.stats().damagedReads == 0)
            }
        }
    }

    /// A flipped bit in a loose blob: the read that finds it says damaged (and repairs), the
    /// next one finds no entry; the stored value is found as ever before the damage.
    @Test func aDamagedCopyIsDamagedOnceThenAbsent() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let digest = try withStore(path, looseOnly) { store throws in
                let digest = try store.put(Data("to be damaged"), for: "k")
                let found = try #require(try store.openValue(for: "k").value)
                #expect(try found.readToEnd() == Data("to be damaged"))
                try found.close()
                return digest
            }
            chmod(blobFile(path, digest), 0o600)
            flipBit(blobFile(path, digest), at: 0, bit: 0)
            try withStore(path, looseOnly) { store throws in
                guard case .damaged = try store.openValue(for: "k") else {
                    Issue.record("openValue of a damaged copy")
                    return
                }
                guard case .absent = try store.readEntry(for: "k") else {
                    Issue.record("readEntry after the repair dropped the entry")
                    return
                }
            }
        }
    }

    /// A blob whose file fails its digest check reads as damaged by digest too.
    @Test func aDamagedBlobIsDamagedByDigest() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let digest = try withStore(path, looseOnly) { store throws in try store.put(Data("blob"), for: "k") }
            chmod(blobFile(path, digest), 0o600)
            flipBit(blobFile(path, digest), at: 1, bit: 3)
            try withStore(path, looseOnly) { store throws in
                guard case .damaged = try store.openBlob(digest) else {
                    Issue.record("openBlob of a damaged file")
                    return
                }
                #expect(try store.stats().damagedReads == 1)
            }
        }
    }

    /// Only the failure of a call that makes data durable counts as a sync failure (the poison
    /// rule), and the error names the call.
    @Test func onlyFsyncAndFdatasyncAreSyncFailures() {
        for call in SystemCall.allCases {
            let error = BlobStoreError.system(call, path: "/p", errno: EIO)
            #expect(error.call == call)
            #expect(error.isSyncFailure == (call == .fsync || call == .fdatasync), "\(call)")
            #expect(error.message.hasPrefix(call.rawValue), "\(error.message)")
        }
        #expect(SystemCall.memfdCreate.description == "memfd_create")
    }
}
