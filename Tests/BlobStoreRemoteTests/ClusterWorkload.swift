import BlobStore
import BlobStoreTestKit
import Foundation
import Synchronization

@testable import BlobStoreRemote

/// Threads that put and get a shared set of values through a cluster until stopped, each with a
/// local store of its own, counting everything by phase (the test moves the phase on: before,
/// during and after a failover, say). After each operation the key is removed from the thread's
/// local store, so that every get asks the remote. Every value got is compared with the one its
/// key always has: a difference is counted in `wrongBytes`.
final class ClusterWorkload: Sendable {
    struct Counts: Sendable, CustomStringConvertible {
        var operations = 0
        var puts = 0
        var gets = 0
        var remoteHits = 0
        var remoteMisses = 0
        var remoteErrors = 0
        var coolDownSkips = 0
        var bytesUp: UInt64 = 0
        var bytesDown: UInt64 = 0
        var wrongBytes = 0
        /// Errors that reached the caller: there must be none.
        var thrown = 0

        /// Remote hits among the gets that asked the remote (a cool-down skip is a miss).
        var hitRatio: Double {
            remoteHits + remoteMisses == 0 ? 0 : Double(remoteHits) / Double(remoteHits + remoteMisses)
        }

        var description: String {
            "\(operations) ops (\(puts) puts, \(gets) gets), remote hits \(remoteHits), misses \(remoteMisses) "
                + "(hit ratio \(String(format: "%.2f", hitRatio))), errors \(remoteErrors), cool-down skips "
                + "\(coolDownSkips), bytes up \(bytesUp), down \(bytesDown), wrong bytes \(wrongBytes), thrown \(thrown)"
        }

        static func + (a: Counts, b: Counts) -> Counts {
            var sum = a
            sum.operations += b.operations
            sum.puts += b.puts
            sum.gets += b.gets
            sum.remoteHits += b.remoteHits
            sum.remoteMisses += b.remoteMisses
            sum.remoteErrors += b.remoteErrors
            sum.coolDownSkips += b.coolDownSkips
            sum.bytesUp += b.bytesUp
            sum.bytesDown += b.bytesDown
            sum.wrongBytes += b.wrongBytes
            sum.thrown += b.thrown
            return sum
        }
    }

    let keys: Int
    private let phases: Mutex<(current: Int, counts: [Counts])>
    private let stopped = Mutex(false)
    private let written = Mutex(Set<Int>())
    private let group = DispatchGroup()

    /// Starts `threads` threads, each with its own store under `directory` and its own backend
    /// from `makeBackend`, on `keys` keys.
    init(
        threads: Int, keys: Int, phases: Int, in directory: TemporaryDirectory,
        configuration: RemoteConfiguration = RemoteConfiguration(coolDown: .milliseconds(200)),
        makeBackend: () throws -> any RemoteBackend
    ) throws {
        self.keys = keys
        self.phases = Mutex((0, [Counts](repeating: Counts(), count: phases)))
        let stores = try (0..<threads).map { index in
            TieredStore(
                local: try directory.store("workload-\(UUID().uuidString)-\(index)"), remote: try makeBackend(),
                configuration: configuration)
        }
        for (index, store) in stores.enumerated() {
            group.enter()
            Thread.detachNewThread { [self] in
                defer { group.leave() }
                work(store, seed: UInt64(index + 1))
            }
        }
    }

    /// The value key `index` always has: 1 to 4 KB, different for every key.
    static func value(_ index: Int) -> Data {
        sampleBytes(1_000 + (index * 37) % 3_000, seed: UInt8(truncatingIfNeeded: index % 251))
    }

    static func key(_ index: Int) -> StoreKey { StoreKey("k\(index)") }

    /// Moves the counting on to phase `phase`.
    func enter(_ phase: Int) { phases.withLock { $0.current = phase } }

    /// Stops the threads and returns the counts of each phase.
    func stop() -> [Counts] {
        stopped.withLock { $0 = true }
        group.wait()
        return phases.withLock { $0.counts }
    }

    /// The keys put at least once.
    var writtenKeys: Set<Int> { written.withLock { $0 } }

    private func work(_ store: TieredStore, seed: UInt64) {
        var random = seed &* 0x9E37_79B9_7F4A_7C15
        while !stopped.withLock({ $0 }) {
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let index = Int((random >> 33) % UInt64(keys))
            let isPut = (random >> 20) % 10 < 3
            let before = store.stats
            var delta = Counts(operations: 1)
            do {
                if isPut {
                    delta.puts = 1
                    try store.put(Self.value(index), for: Self.key(index))
                    written.withLock { _ = $0.insert(index) }
                } else {
                    delta.gets = 1
                    if let got = try store.value(for: Self.key(index)) {
                        delta.wrongBytes = Self.wrongBytes(got, Self.value(index))
                    }
                }
                try store.local.remove(Self.key(index))
            } catch {
                delta.thrown = 1
            }
            let after = store.stats
            delta.remoteHits = after.hits - before.hits
            delta.remoteMisses = after.misses - before.misses
            delta.remoteErrors = after.errors - before.errors
            delta.coolDownSkips = after.coolDownSkips - before.coolDownSkips
            delta.bytesUp = after.bytesUp - before.bytesUp
            delta.bytesDown = after.bytesDown - before.bytesDown
            phases.withLock { $0.counts[$0.current] = $0.counts[$0.current] + delta }
        }
    }

    /// The bytes of `got` that differ from `expected`, and those one has beyond the other.
    static func wrongBytes(_ got: Data, _ expected: Data) -> Int {
        zip(got, expected).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) } + abs(got.count - expected.count)
    }
}
