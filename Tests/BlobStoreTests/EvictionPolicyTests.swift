import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@testable import BlobStore

/// The store's SIEVE and S3-FIFO eviction (docs/design.md, "Eviction policies"): the entries it
/// keeps are the ones the policy's queue, run on its own, keeps; across a reopen, a compaction
/// and a second handle.
@Suite struct EvictionPolicyTests {
    /// A store of at most `maxEntries` entries, evicting exactly down to the limit.
    private func configuration(_ policy: EvictionPolicy, maxEntries: Int, batch: Int = 1024) -> BlobStore.Configuration
    {
        var configuration = fast
        configuration.limits = EvictionLimits(maxEntries: maxEntries, lowWater: 1, policy: policy)
        configuration.accessBatchSize = batch
        return configuration
    }

    /// The queue on its own, as the store runs it: a put inserts and then evicts while over the
    /// limit, passing over the key just put.
    private struct Model {
        var sieve: SieveQueue<StoreKey>?
        var s3fifo: S3FIFOQueue<StoreKey>?
        let maxEntries: Int

        init(_ policy: EvictionPolicy, maxEntries: Int) {
            self.maxEntries = maxEntries
            if policy == .sieve { sieve = SieveQueue() }
            if policy == .s3fifo {
                s3fifo = S3FIFOQueue(
                    capacity: UInt64(maxEntries), admitsLargeToMain: true, ghostID: { ManifestFormat.keyHash($0) })
            }
        }

        var count: Int { sieve?.count ?? s3fifo!.count }
        func contains(_ key: StoreKey) -> Bool { sieve?.contains(key) ?? s3fifo!.contains(key) }

        mutating func get(_ key: StoreKey) {
            sieve?.access(key)
            s3fifo?.access(key)
        }

        mutating func put(_ key: StoreKey) {
            if contains(key) { return get(key) }
            sieve?.insert(key, size: 1)
            s3fifo?.noteMiss(key)
            s3fifo?.insert(key, size: 1)
            while count > maxEntries {
                let victim = sieve != nil ? sieve!.evict(sparing: key) : s3fifo!.evict(sparing: key)
                if victim == nil { break }
            }
        }
    }

    /// `count` operations on keys of a skewed popularity: two reads for every put.
    private func operations(_ count: Int, seed: UInt64) -> [(put: Bool, key: StoreKey)] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            // The square of a uniform draw: small key numbers come up far more often.
            let draw = Double(random.next() % 10_000) / 10_000
            let key = StoreKey("k\(Int(draw * draw * 300))")
            return (random.next() % 3 == 0, key)
        }
    }

    private func run(_ operations: some Sequence<(put: Bool, key: StoreKey)>, on store: BlobStore) throws {
        for operation in operations {
            if operation.put {
                try store.put(Data(operation.key.description.utf8), for: operation.key)
            } else {
                _ = try store.value(for: operation.key)
            }
        }
    }

    private func keys(_ store: BlobStore) throws -> Set<StoreKey> { Set(try store.entries().map(\.key)) }

    @Test(arguments: [EvictionPolicy.sieve, .s3fifo])
    func theStoreKeepsWhatThePolicyKeeps(_ policy: EvictionPolicy) throws {
        try withTemporaryDirectory { dir throws in
            var model = Model(policy, maxEntries: 40)
            try withStore(dir.child("s"), configuration(policy, maxEntries: 40)) { store throws in
                for (index, operation) in operations(3000, seed: 7).enumerated() {
                    if operation.put {
                        try store.put(Data(operation.key.description.utf8), for: operation.key)
                        model.put(operation.key)
                    } else if try store.value(for: operation.key) != nil {
                        model.get(operation.key)
                    }
                    if index % 100 == 99 {
                        let held = try keys(store)
                        #expect(held.count == model.count)
                        #expect(held.allSatisfy(model.contains), "after operation \(index)")
                    }
                }
                let stats = try store.stats()
                #expect(stats.entries == 40)
            }
        }
    }

    @Test(arguments: [EvictionPolicy.sieve, .s3fifo])
    func aReopenedStoreEvictsAsTheRunningOneWould(_ policy: EvictionPolicy) throws {
        try withTemporaryDirectory { dir throws in
            let first = operations(1500, seed: 11)
            let second = operations(1500, seed: 12)
            let configuration = configuration(policy, maxEntries: 40)
            let kept = try withStore(dir.child("running"), configuration) { store throws in
                try run(first, on: store)
                try run(second, on: store)
                return try keys(store)
            }
            // Reopened: the queue is rebuilt from the journal.
            try withStore(dir.child("reopened"), configuration) { try run(first, on: $0) }
            let reopened = try withStore(dir.child("reopened"), configuration) { store throws in
                try run(second, on: store)
                return try keys(store)
            }
            #expect(reopened == kept)
            // Compacted, then reopened: from the manifest and `policy-<gen>`.
            try withStore(dir.child("compacted"), configuration) { store throws in
                try run(first, on: store)
                _ = try store.compact()
            }
            #expect(FileManager.default.fileExists(atPath: dir.child("compacted") + "/policy-2"))
            let compacted = try withStore(dir.child("compacted"), configuration) { store throws in
                try run(second, on: store)
                return try keys(store)
            }
            #expect(compacted == kept)
        }
    }

    /// This process and another (`blobstore-test-helper run-ops`) take turns on one store, the
    /// other opening it afresh each turn (its queue rebuilt from the files) while this one keeps
    /// its own open (its queue replaying the other's records): both keep what one process alone
    /// keeps.
    @Test(arguments: [EvictionPolicy.sieve, .s3fifo])
    func twoProcessesKeepOneQueue(_ policy: EvictionPolicy) throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            // Every read appended at once, so that each process's rounds know the other's reads.
            let configuration = configuration(policy, maxEntries: 40, batch: 1)
            let all = operations(3000, seed: 5)
            let alone = try withStore(dir.child("alone"), configuration) { store throws in
                try run(all, on: store)
                return try keys(store)
            }
            let store = try BlobStore(at: path, configuration: configuration)
            defer { try? store.close() }
            let turns = stride(from: 0, to: all.count, by: 250).map { all[$0..<min($0 + 250, all.count)] }
            for (turn, operations) in turns.enumerated() {
                if turn % 2 == 0 {
                    try run(operations, on: store)
                    continue
                }
                let file = dir.child("ops-\(turn)")
                let lines = operations.map { ($0.put ? "p " : "g ") + $0.key.description + "\n" }.joined()
                try Data(lines.utf8).write(to: URL(fileURLWithPath: file))
                let helper = BuiltProducts.executable("blobstore-test-helper")
                let execution = try ChildProcess.run(
                    helper, ["run-ops", path, policy.rawValue, "40", file], in: dir)
                #expect(execution.status == 0, "\(execution.stderr)")
            }
            #expect(try keys(store) == alone)
        }
    }

    /// Hot keys read three times, then a scan of keys read once as long as the store: LRU lets
    /// the scan push every hot key out, SIEVE and S3-FIFO keep them.
    @Test(arguments: [EvictionPolicy.lru, .sieve, .s3fifo])
    func aScanDoesNotFlushHotKeys(_ policy: EvictionPolicy) throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s"), configuration(policy, maxEntries: 20)) { store throws in
                let hot = (0..<10).map { StoreKey("hot\($0)") }
                for key in hot { try store.put(Data("h".utf8), for: key) }
                for _ in 0..<2 { for key in hot { _ = try store.value(for: key) } }
                for index in 0..<20 { try store.put(Data("s\(index)".utf8), for: StoreKey("scan\(index)")) }
                let kept = try hot.filter { try store.value(for: $0) != nil }.count
                #expect(kept == (policy == .lru ? 0 : 10))
            }
        }
    }

    /// After every operation, under byte capacities and the default low-water mark, with
    /// compactions between: the queue this process keeps is the one a process opening the store
    /// now would build from its files (the manifest, `policy-<gen>`, the journal, the reads not
    /// appended yet).
    @Test(arguments: [EvictionPolicy.sieve, .s3fifo])
    func theQueueKeptIsTheQueueTheFilesGive(_ policy: EvictionPolicy) throws {
        try withTemporaryDirectory { dir throws in
            var configuration = fast
            configuration.limits = EvictionLimits(capacity: 64 * 1024, policy: policy)
            try withStore(dir.child("s"), configuration) { store throws in
                var random = SplitMix64(seed: 99)
                for (index, operation) in operations(1500, seed: 21).enumerated() {
                    if operation.put {
                        // Sizes from 0 to 3 KiB: a blob may take nothing, a needle or more.
                        let size = Int(random.next() % 3072)
                        try store.put(Data(repeating: UInt8(index % 251), count: size), for: operation.key)
                    } else {
                        _ = try store.value(for: operation.key)
                    }
                    if index % 400 == 399 { _ = try store.compact() }
                    let (kept, rebuilt) = store.state.withLock { state in
                        var fresh = state
                        fresh.index.policy = nil
                        fresh.preparePolicy(state.limits, layout: store.layout)
                        return (
                            state.index.policy?.snapshot(generation: 0), fresh.index.policy?.snapshot(generation: 0)
                        )
                    }
                    // Before the first round no queue is kept; from then on it must match.
                    if kept != nil { try #require(kept == rebuilt, "after operation \(index)") }
                }
                let usage = try #require(try store.stats().allProcesses)
                #expect(usage.chosenByPolicy > 100)
            }
        }
    }

    /// A queue that lost entries (it cannot, unless this process's copy went wrong) still lets
    /// a round get under the limit: by LRU over what it does not hold, and it is rebuilt.
    @Test func aRoundGetsUnderTheLimitWhenTheQueueMissesEntries() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s"), configuration(.sieve, maxEntries: 10)) { store throws in
                for index in 0..<11 { try store.put(Data("v\(index)".utf8), for: StoreKey("k\(index)")) }
                let built = store.state.withLock { $0.index.policy?.count }
                #expect(built == 10)
                store.state.withLock { state in
                    for index in 1..<11 { state.index.policy?.remove(StoreKey("k\(index)")) }
                }
                try store.put(Data("new".utf8), for: "new")
                #expect(try store.stats().entries == 10)
                // Rebuilt at the next round, from the files: every entry again.
                try store.put(Data("newer".utf8), for: "newer")
                #expect(store.state.withLock { $0.index.policy?.count } == 10)
                #expect(try store.stats().entries == 10)
            }
        }
    }

    /// What may stand at `policy-<gen>` instead of a snapshot: a FIFO (never opened blocking: a
    /// round holds the exclusive lock), a sparse file of 64 GiB (never read), a damaged file; all
    /// are ignored and the queue starts from the entries. A snapshot belongs (verify finds no
    /// stray); a directory of that name, or another `policy-` name, is stray; the leftover of an
    /// atomic write that died goes with gc.
    @Test func oddFilesInPlaceOfASnapshotAreIgnored() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            let configuration = configuration(.sieve, maxEntries: 10)
            try withStore(path, configuration) { store throws in
                for index in 0..<12 { try store.put(Data("v\(index)".utf8), for: StoreKey("k\(index)")) }
                _ = try store.compact()
            }
            #expect(FileManager.default.fileExists(atPath: path + "/policy-2"))
            #expect(try withStore(path) { try $0.verify() }.strayFiles.isEmpty)
            for odd in ["fifo", "sparse", "damaged"] {
                _ = try? FileManager.default.removeItem(atPath: path + "/policy-2")
                switch odd {
                case "fifo": #expect(mkfifo(path + "/policy-2", 0o600) == 0)
                case "sparse":
                    let fd = open(path + "/policy-2", O_CREAT | O_WRONLY, 0o600)
                    #expect(ftruncate(fd, 64 << 30) == 0)
                    close(fd)
                default: try Data("BLOBPLCY not really".utf8).write(to: URL(fileURLWithPath: path + "/policy-2"))
                }
                try withStore(path, configuration) { store throws in
                    try store.put(Data("more".utf8), for: StoreKey("more-\(odd)"))
                    #expect(try store.stats().entries == 10, "\(odd)")
                    #expect(store.state.withLock { $0.index.policy?.count } == 10, "\(odd)")
                }
            }
            try FileManager.default.createDirectory(atPath: path + "/policy-dir", withIntermediateDirectories: false)
            try Data().write(to: URL(fileURLWithPath: path + "/policy-3.0a1b"))
            try withStore(path) { store throws in
                let stray = try store.verify().strayFiles
                #expect(stray.contains { $0.hasSuffix("policy-dir") })
                #expect(!stray.contains { $0.hasSuffix("policy-3.0a1b") })
                try store.collectGarbage(gracePeriod: .zero)
            }
            #expect(!FileManager.default.fileExists(atPath: path + "/policy-3.0a1b"))
        }
    }

    /// Expired entries go first and are counted as such; the rest are the policy's choice.
    @Test func evictionsAreCountedByReason() throws {
        try withTemporaryDirectory { dir throws in
            try withStore(dir.child("s"), configuration(.sieve, maxEntries: 5)) { store throws in
                try store.put(Data("soon".utf8), for: "soon", expires: Date(timeIntervalSinceNow: 0.05))
                Thread.sleep(forTimeInterval: 0.1)
                for index in 0..<10 { try store.put(Data("v\(index)".utf8), for: StoreKey("k\(index)")) }
                let usage = try #require(try store.stats().allProcesses)
                #expect(usage.expiredEvictions == 1)
                #expect(usage.agedEvictions == 0)
                #expect(usage.chosenByPolicy == 5)
                #expect(usage.evictions == 6)
            }
        }
    }

    @Test func thePolicyIsRecordedAndShown() throws {
        try withTemporaryDirectory { dir throws in
            let path = dir.child("s")
            try withStore(path, configuration(.s3fifo, maxEntries: 10)) { _ in }
            let text = try String(contentsOfFile: path + "/limits", encoding: .utf8)
            #expect(text.contains("policy s3fifo\n"))
            try withStore(path) { store in #expect(store.limits.policy == .s3fifo) }
            #expect(LimitsFile.decode("max-entries 10\nlow-water 0.9\npolicy clock\n") == nil)
            // Written before the policy line: the default.
            #expect(LimitsFile.decode("max-entries 10\nlow-water 0.9\n")?.policy == .s3fifo)
            #expect(EvictionLimits().policy == .s3fifo)
        }
    }
}
