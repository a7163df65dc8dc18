import BlobStore
import BlobStoreTestKit
import Foundation
import Glibc
import Synchronization
import Testing

/// Packs shared by processes: one rewrites packs (`blobstore gc`) while another reads and writes.
@Suite(.serialized) struct PackProcessTests {
    /// 700 bytes, distinct for every index.
    private func value(_ index: Int) -> Data {
        let prefix = Array("value \(index) ".utf8)
        return Data(prefix + (prefix.count..<700).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
    }

    private func packFiles(_ path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path + "/packs")) ?? []).sorted()
    }

    /// The newest pack deleted by another process (nothing in it lived) while this one's writer
    /// still holds it, even when this process held the lock since and trusts its index, and by
    /// this one while other processes have not seen it go: every writer finds the file gone and
    /// moves on to one new pack, and every value reads back everywhere.
    @Test func theNewestPackDeletedByOneProcessIsLeftByTheOthers() throws {
        try withTemporaryDirectory { scratch in
            let path = scratch.child("store")
            let store = try BlobStore(at: path, configuration: BlobStore.Configuration(durability: .none))
            defer { try? store.close() }
            try store.put(value(0), for: "a0")
            try store.put(value(1), for: "a1")
            #expect(packFiles(path) == ["pack-1"])
            // Another process empties and deletes pack-1, which this one appends to.
            for arguments in [["rm", "a0", "a1"], ["gc", "--grace", "0s"]] {
                let run = try blobstore(["--store", path] + arguments, in: scratch)
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
            }
            #expect(packFiles(path) == [])
            // A hold that appends nothing, after which this process is the last to have held the
            // lock: the put below trusts its index, which still names pack-1 as the newest.
            #expect(try store.remove("a0") == false)
            try store.put(value(2), for: "c")
            #expect(packFiles(path) == ["pack-2"])
            let readElsewhere = try blobstore(["--store", path, "get", "c"], in: scratch)
            #expect(readElsewhere.status == 0 && readElsewhere.standardOutput == value(2), "\(readElsewhere.stderr)")
            // This one empties and deletes pack-2; another process, new, puts next.
            try store.remove("c")
            try store.collectGarbage(gracePeriod: .zero)
            #expect(packFiles(path) == [])
            let put = try blobstore(["--store", path, "put", "d"], input: value(3), in: scratch)
            #expect(put.status == 0, "\(put.stderr)")
            try store.put(value(4), for: "e")
            #expect(packFiles(path).count == 1, "\(packFiles(path))")
            #expect(try store.value(for: "d") == value(3))
            #expect(try store.value(for: "e") == value(4))
            let read = try blobstore(["--store", path, "get", "e"], in: scratch)
            #expect(read.status == 0 && read.standardOutput == value(4), "\(read.stderr)")
            let verify = try blobstore(["--store", path, "verify"], in: scratch)
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(try store.verify().isClean)
        }
    }

    /// Another process runs `gc` again and again, rewriting mostly dead packs and deleting the
    /// old files, while this one reads every live key and puts new ones: no read misses, none
    /// returns wrong bytes, and afterwards every value reads back and verify finds nothing.
    @Test func aRepackInAnotherProcessNeverCostsAReaderItsValues() throws {
        try withTemporaryDirectory { scratch in
            let path = scratch.child("store")
            var configuration = BlobStore.Configuration(durability: .none)
            configuration.packSize = 64 << 10
            let store = try BlobStore(at: path, configuration: configuration)
            defer { try? store.close() }
            var live: [Int] = []
            for index in 0..<1200 {
                try store.put(value(index), for: StoreKey("k\(index)"))
                // Three in four go: most packs end up a quarter live.
                if index % 4 == 0 { live.append(index) } else { try store.remove(StoreKey("k\(index)")) }
            }
            let packsBefore = try FileManager.default.contentsOfDirectory(atPath: path + "/packs").count
            #expect(packsBefore >= 10)

            let done = Atomic<Bool>(false)
            let rewritten = Mutex<[Int]>([])
            let collector = Thread {
                for _ in 0..<20 {
                    if let run = try? blobstore(["--store", path, "gc", "--grace", "0s", "--json"], in: scratch),
                        run.status == 0,
                        let report = try? JSONSerialization.jsonObject(with: run.standardOutput) as? [String: Any]
                    {
                        rewritten.withLock { $0.append(report["packsRewritten"] as? Int ?? -1) }
                    } else {
                        rewritten.withLock { $0.append(-1) }
                    }
                }
                done.store(true, ordering: .sequentiallyConsistent)
            }
            collector.start()
            var next = 1200
            var reads = 0
            while !done.load(ordering: .sequentiallyConsistent) {
                for index in live {
                    let read = try store.value(for: StoreKey("k\(index)"))
                    #expect(read == value(index), "k\(index) while another process repacks")
                    reads += 1
                }
                for _ in 0..<40 {
                    try store.put(value(next), for: StoreKey("k\(next)"))
                    if next % 2 == 0 { live.append(next) } else { try store.remove(StoreKey("k\(next)")) }
                    next += 1
                }
            }
            let runs = rewritten.withLock { $0 }
            #expect(runs.count == 20 && runs.allSatisfy { $0 >= 0 }, "every gc ran: \(runs)")
            #expect(runs.reduce(0, +) >= packsBefore / 2, "gc rewrote packs: \(runs)")
            #expect(reads > live.count)
            for index in live { #expect(try store.value(for: StoreKey("k\(index)")) == value(index)) }
            let report = try store.verify()
            #expect(report.corruptBlobs.isEmpty && report.missingBlobs.isEmpty, "\(report)")
        }
    }
}
