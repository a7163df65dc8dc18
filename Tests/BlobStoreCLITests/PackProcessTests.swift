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
