import BlobStore
import BlobStoreTestKit
import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import BlobStoreRemote

@Suite("The remote-stats file")
struct RemoteStatsFileTests {
    private func withStore(_ body: (BlobStore, String) throws -> Void) throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let store = try directory.store("S")
        try body(store, directory.child("S") + "/" + RemoteStatsFile.name)
    }

    private func one() -> RemoteStats {
        var stats = RemoteStats()
        stats.hits = 1
        stats.bytesUp = 1
        return stats
    }

    @Test func counterAtIntMaxSaturatesInsteadOfTrapping() throws {
        try withStore { store, path in
            let text = #"{"hits":\#(Int.max),"bytesUp":\#(UInt64.max)}"#
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            try RemoteStatsFile.add(one(), to: store)
            let total = try #require(RemoteStatsFile.read(store))
            #expect(total.hits == Int.max)
            #expect(total.bytesUp == UInt64.max)
        }
    }

    @Test func negativeCounterMakesTheFileUnusable() throws {
        try withStore { store, path in
            try #"{"hits":-5,"misses":3}"#.write(toFile: path, atomically: false, encoding: .utf8)
            #expect(RemoteStatsFile.read(store) == RemoteStats())
            try RemoteStatsFile.add(one(), to: store)
            #expect(RemoteStatsFile.read(store) == one())
        }
    }

    @Test func missingCountersAreZero() throws {
        try withStore { store, path in
            try #"{"hits":4}"#.write(toFile: path, atomically: false, encoding: .utf8)
            var expected = RemoteStats()
            expected.hits = 4
            #expect(RemoteStatsFile.read(store) == expected)
        }
    }

    @Test func fifoIsNotWaitedOn() throws {
        try withStore { store, path in
            #expect(mkfifo(path, 0o600) == 0)
            let start = ContinuousClock.now
            #expect(RemoteStatsFile.read(store) == RemoteStats())
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test func symbolicLinkIsNotFollowed() throws {
        try withStore { store, path in
            let target = path + "-target"
            try #"{"hits":7}"#.write(toFile: target, atomically: false, encoding: .utf8)
            #expect(symlink(target, path) == 0)
            #expect(RemoteStatsFile.read(store) == RemoteStats())
            try RemoteStatsFile.add(one(), to: store)
            #expect(try String(contentsOfFile: target, encoding: .utf8) == #"{"hits":7}"#, "the target is untouched")
        }
    }

    @Test func hugeFileIsNotRead() throws {
        try withStore { store, path in
            let huge = Data("{\"hits\":1,\"x\":\"".utf8) + Data(repeating: 0x61, count: 8 << 20) + Data("\"}".utf8)
            try huge.write(to: URL(fileURLWithPath: path))
            #expect(RemoteStatsFile.read(store) == RemoteStats())
        }
    }

    @Test func savedFileHasTheStoreModeAndLeavesNoStrays() throws {
        try withStore { store, path in
            try RemoteStatsFile.add(one(), to: store)
            var info = stat()
            #expect(lstat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == store.configuration.fileMode)
            let names = try FileManager.default.contentsOfDirectory(atPath: store.path)
            #expect(names.filter { $0.hasPrefix(RemoteStatsFile.name) } == [RemoteStatsFile.name])
            #expect(try store.verify().isClean)
        }
    }

    @Test func concurrentSavesInOneProcessLoseNothing() throws {
        try withStore { store, _ in
            DispatchQueue.concurrentPerform(iterations: 16) { _ in try? RemoteStatsFile.add(one(), to: store) }
            #expect(RemoteStatsFile.read(store)?.hits == 16)
        }
    }
}
