import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// The fast paths of reads and writes: one `read(2)` of a known size for small blobs, hashing
/// overlapped with I/O for large ones. Each must fall back to the careful path on anything odd.
@Suite struct ReadPathTests {
    /// 3 MiB of bytes that differ from `seed` to `seed`.
    private func largeValue(_ seed: UInt8) -> Data {
        Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 12) })
    }

    /// A value above the overlap threshold round trips through `value(for:)`, `fileHandle(for:)`
    /// and `blob(_:)`, and under a second key is stored once: the copy written while hashing
    /// is discarded, not left in tmp/.
    @Test func aLargeValueRoundTripsAndIsStoredOnce() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let value = largeValue(1)
            #expect(value.count >= OverlappedHashing.threshold)
            try withStore(path, looseOnly) { store throws in
                let digest = try store.put(value, for: "a")
                #expect(digest == SHA256Hasher.hash(value))
                #expect(try store.put(value, for: "b") == digest)
                #expect(try store.value(for: "a") == value)
                #expect(try store.value(for: "b") == value)
                #expect(try store.blob(digest) == value)
                let handle = try #require(try store.fileHandle(for: "a"))
                #expect(try handle.readToEnd() == value)
                try handle.close()
                #expect(try store.stats().distinctBlobs == 1)
            }
            #expect(regularFiles(under: path + "/blobs").count == 1)
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/tmp").isEmpty)
        }
    }

    /// A file streamed in 1 MiB pieces, each written while another thread hashes it, gets the
    /// digest of its bytes and reads back whole.
    @Test func aLargeFileStreamedInIsHashedWhileWritten() throws {
        try withTemporaryDirectory { dir throws in
            let value = largeValue(3) + Data("a tail shorter than a piece".utf8)
            let source = dir.child("source")
            writeBytes(source, Array(value))
            try withStore(dir.child("s")) { store throws in
                let digest = try store.put(contentsOf: URL(fileURLWithPath: source), for: "file")
                #expect(digest == SHA256Hasher.hash(value))
                #expect(try store.value(for: "file") == value)
            }
        }
    }

    /// One flipped byte in a large blob, far from its start, is caught by the overlapped hash:
    /// the read is a miss, the file is quarantined.
    @Test func aDamagedLargeBlobIsAMiss() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let digest = try withStore(path, looseOnly) { try $0.put(largeValue(2), for: "big") }
            let file = blobFile(path, digest)
            #expect(chmod(file, 0o600) == 0)
            flipBit(file, at: (2 << 20) + 12345, bit: 3)
            try withStore(path, looseOnly) { store throws in
                #expect(try store.value(for: "big") == nil)
                #expect(try store.stats().damagedReads == 1)
                #expect(try store.info(for: "big") == nil)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: path + "/quarantine").count == 1)
        }
    }

    /// A blob one byte longer or shorter than its entry says is damage, small or large: the
    /// one-read path must not take the first `size` bytes of a longer file as the value.
    @Test(arguments: [5, 3 << 20])
    func aBlobOfAnotherSizeIsDamage(size: Int) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let longer = Data(repeating: 7, count: size)
            let shorter = Data(repeating: 9, count: size)
            let (long, short) = try withStore(path, looseOnly) { store throws in
                (try store.put(longer, for: "longer"), try store.put(shorter, for: "shorter"))
            }
            for file in [blobFile(path, long), blobFile(path, short)] { #expect(chmod(file, 0o600) == 0) }
            writeBytes(blobFile(path, long), Array(longer) + [7])
            truncate(blobFile(path, short), to: size - 1)
            var unverified = fast
            unverified.verifyReads = false
            try withStore(path, unverified) { store throws in
                #expect(try store.value(for: "longer") == nil)
                #expect(try store.value(for: "shorter") == nil)
                #expect(try store.stats().damagedReads == 2)
            }
        }
    }
}
