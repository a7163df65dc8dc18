import BlobStoreTestKit
import Foundation
import Glibc
import Testing

@_spi(Testing) @testable import BlobStore

/// One step of a fault-injection workload.
private enum Step: CustomStringConvertible {
    case put(String, String)
    case remove(String)
    case compact
    case gc
    /// A collection that evicts to ``evictionLimits``.
    case evict
    /// ``evictionLimits`` recorded as the store's own: later puts evict, under the default
    /// policy, and compactions write its queue (`policy-<gen>`).
    case limit
    case flush

    var description: String {
        switch self {
        case .put(let key, let value): "put \(key)=\(value)"
        case .remove(let key): "rm \(key)"
        case .compact: "compact"
        case .gc: "gc"
        case .evict: "evict"
        case .limit: "limit"
        case .flush: "flush"
        }
    }
}

/// The limits of the `evict` step: one entry, so that it evicts most of the workload's keys and
/// leaves their pack mostly dead, to be rewritten by the same collection.
private let evictionLimits = EvictionLimits(maxEntries: 2)

/// The small workloads swept: every counted operation of each is failed in turn.
private let workloads: [String: [Step]] = [
    "put": [.put("a", "alpha"), .put("b", "beta"), .put("c", "alpha"), .put("d", "delta")],
    "overwrite": [.put("a", "one"), .put("a", "two"), .put("a", "three")],
    "remove": [.put("a", "alpha"), .put("b", "beta"), .remove("a"), .put("a", "again")],
    "compact": [.put("a", "one"), .put("b", "beta"), .put("a", "two"), .remove("b"), .compact, .put("c", "gamma")],
    "gc": [.put("a", "one"), .put("a", "two"), .put("b", "beta"), .remove("b"), .gc, .put("c", "gamma")],
    "evict": [.put("a", "one"), .put("b", "beta"), .put("c", "gamma"), .put("a", "two"), .evict, .put("d", "delta")],
    // Puts evict by the default policy, whose queue the compaction writes beside its manifest.
    "policy": [
        .put("a", "alpha"), .put("b", "beta"), .put("c", "gamma"), .limit, .put("d", "delta"), .put("a", "again"),
        .compact, .put("e", "epsilon"),
    ],
    // Nothing in the newest pack lives: gc deletes it, and the next put starts another.
    "empty": [.put("a", "alpha"), .put("b", "beta"), .remove("a"), .remove("b"), .gc, .put("c", "gamma")],
    // Chunked values (``chunkedValueBytes``), two sharing most chunks; a remove, a compaction
    // that writes the recipes, a gc that frees the chunks only the removed one used.
    "chunked": [
        .put("a", "chunked one"), .put("b", "chunked one, edited"), .put("c", "small"), .remove("a"), .compact,
        .put("a", "chunked two"), .remove("b"), .gc,
    ],
]

/// The bytes a step's value stands for: a value named `chunked …` is 24 KiB (chunked at the
/// sweeps' 4 KiB average: about six chunks); `, edited` inserts 100 bytes into the middle of
/// the value it names. Any other value is its UTF-8.
private func valueBytes(_ value: String) -> Data {
    guard value.hasPrefix("chunked ") else { return Data(value.utf8) }
    if value.hasSuffix(", edited") {
        var bytes = valueBytes(String(value.dropLast(", edited".count)))
        bytes.insert(contentsOf: SplitMix64.bytes(100, seed: 99), at: 12 << 10)
        return bytes
    }
    return Data(SplitMix64.bytes(24 << 10, seed: UInt64(value.utf8.count)))
}

/// The value a read's bytes stand for, among `values`.
private func valueName(_ data: Data, among values: Set<String?>) -> String {
    values.compactMap { $0 }.first { valueBytes($0) == data } ?? String(decoding: data, as: UTF8.self)
}

/// The sweeps' configuration: values from 20 KiB on are chunked at a 4 KiB average.
private func sweepConfiguration(_ durability: Durability) -> BlobStore.Configuration {
    var configuration = BlobStore.Configuration(durability: durability)
    configuration.compactionMinimumJournalBytes = .max
    configuration.chunkThreshold = 20 << 10
    configuration.chunkSize = 4 << 10
    return configuration
}

/// What each key may hold after a run.
private struct Expectation {
    /// Without a power loss: exactly the last acknowledged value, or, after a step that failed
    /// (it may or may not have taken effect), any of the values since the last acknowledged one.
    var allowed: [String: Set<String?>] = [:]
    /// After a power loss: the value last made durable, or any value written after it.
    var sinceDurable: [String: Set<String?>] = [:]
    /// Limits were recorded (or may have been): from then on every write may evict any key.
    var evicting = false

    mutating func apply(_ step: Step, acknowledged: Bool, durability: Durability) {
        switch step {
        case .put(let key, let value):
            change(key, to: value, acknowledged: acknowledged, durable: durability == .always)
        case .remove(let key):
            change(key, to: nil, acknowledged: acknowledged, durable: durability == .always)
        case .flush, .compact:
            // A flush syncs everything appended before it; a compaction writes a synced manifest.
            guard acknowledged else { return }
            for (key, values) in allowed { sinceDurable[key] = values }
        case .gc:
            return
        case .evict:
            mayEvict()
        case .limit:
            evicting = true
            mayEvict()
        }
        // A put under limits may evict any other key.
        if evicting { mayEvict() }
    }

    /// An eviction only removes: each key may now be absent, never an older value.
    private mutating func mayEvict() {
        for key in allowed.keys { allowed[key]?.insert(nil) }
        for key in sinceDurable.keys { sinceDurable[key]?.insert(nil) }
    }

    private mutating func change(_ key: String, to value: String?, acknowledged: Bool, durable: Bool) {
        if acknowledged {
            allowed[key] = [value]
        } else {
            allowed[key, default: [nil]].insert(value)
        }
        if acknowledged && durable {
            sinceDurable[key] = [value]
        } else {
            sinceDurable[key, default: [nil]].insert(value)
        }
    }
}

@Suite(.serialized) struct FaultInjectionTests {
    private func run(
        _ steps: [Step], at path: String, durability: Durability, plan: FaultInjection.Plan?
    ) -> (
        expectation: Expectation, errors: [String], acknowledgedAfterSyncFailure: [String],
        eviction: GarbageCollectionReport?
    ) {
        var expectation = Expectation()
        var errors: [String] = []
        var afterSyncFailure: [String] = []
        var eviction: GarbageCollectionReport?
        if let plan { FaultInjection.begin(plan) }
        let store: BlobStore
        do {
            store = try BlobStore(at: path, configuration: sweepConfiguration(durability))
        } catch {
            if !(error is BlobStoreError) { errors.append("open threw \(type(of: error))") }
            return (expectation, errors, afterSyncFailure, eviction)
        }
        for step in steps {
            let syncFailedBefore = FaultInjection.firstFailure?.hasPrefix("sync") == true
            var acknowledged = true
            do {
                switch step {
                case .put(let key, let value): try store.put(valueBytes(value), for: StoreKey(key))
                case .remove(let key): try store.remove(StoreKey(key))
                case .compact: try store.compact()
                case .gc: try store.collectGarbage(gracePeriod: .zero)
                case .evict: eviction = try store.collectGarbage(limits: evictionLimits, gracePeriod: .zero)
                case .limit: try store.recordLimits(evictionLimits)
                case .flush: try store.flush()
                }
            } catch {
                acknowledged = false
                if !(error is BlobStoreError) { errors.append("\(step) threw \(type(of: error))") }
            }
            if acknowledged && syncFailedBefore { afterSyncFailure.append("\(step)") }
            expectation.apply(step, acknowledged: acknowledged, durability: durability)
        }
        try? store.close()
        return (expectation, errors, afterSyncFailure, eviction)
    }

    /// Opens the store after a run and checks it against what was acknowledged.
    private func check(
        _ path: String, _ expectation: Expectation, durableOnly: Bool, context: String
    ) throws {
        let store = try BlobStore(at: path, configuration: sweepConfiguration(.none))
        defer { try? store.close() }
        for (key, allowed) in durableOnly ? expectation.sinceDurable : expectation.allowed {
            let value = try store.value(for: StoreKey(key)).map { valueName($0, among: allowed) }
            #expect(allowed.contains(value), "\(context): \(key) reads \(value ?? "absent"), allowed \(allowed)")
        }
        let report = try store.verify()
        #expect(
            report.corruptBlobs.isEmpty && report.strayFiles.isEmpty && report.missingBlobs.isEmpty,
            "\(context): \(report)")
        // Space is back: the store takes writes again.
        try store.put(Data("after".utf8), for: "after")
        #expect(try store.value(for: "after") == Data("after".utf8))
    }

    private func countOperations(_ steps: [Step], durability: Durability) -> Int {
        withTemporaryDirectory { dir in
            let path = dir.child("s")
            let run = run(steps, at: path, durability: durability, plan: FaultInjection.Plan(root: path))
            let outcome = FaultInjection.end()
            #expect(run.errors.isEmpty && outcome.failed == nil)
            if steps.contains(where: { if case .evict = $0 { true } else { false } }) {
                // Without a fault the eviction evicts, and rewrites the pack it leaves mostly dead.
                #expect(run.eviction?.chosenByPolicyEntries ?? 0 >= 2, "\(String(describing: run.eviction))")
                #expect(run.eviction?.packsRewritten ?? 0 >= 1, "\(String(describing: run.eviction))")
            }
            if steps.contains(where: { if case .limit = $0 { true } else { false } }) {
                // Without a fault the compaction writes the queue the puts' rounds built.
                #expect(FileManager.default.fileExists(atPath: path + "/policy-2"))
            }
            return outcome.operations
        }
    }

    /// Every write, sync, rename, link and mkdir of each workload fails in turn, with ENOSPC
    /// and EIO, once and from then on: the failing call throws a typed error, nothing is
    /// acknowledged after a failed sync, the store reopens with every acknowledged change, and
    /// takes writes again.
    @Test(arguments: workloads.keys.sorted())
    func everyFailurePointOfAWorkloadKeepsTheProperties(workload: String) throws {
        let steps = workloads[workload]!
        for durability in [Durability.always, .batched] {
            let total = countOperations(steps, durability: durability)
            #expect(total > 10, "the \(workload) workload makes file operations")
            print("fault sweep: \(workload), \(durability): \(total) operations x ENOSPC/EIO x once/sticky")
            for errno in [ENOSPC, EIO] {
                for sticky in [false, true] {
                    for failAt in 1...total {
                        let context = "\(workload) \(durability) errno \(errno) sticky \(sticky) at \(failAt)/\(total)"
                        try withTemporaryDirectory { dir in
                            let path = dir.child("s")
                            let plan = FaultInjection.Plan(root: path, failAt: failAt, errno: errno, sticky: sticky)
                            let run = run(steps, at: path, durability: durability, plan: plan)
                            let outcome = FaultInjection.end()
                            #expect(outcome.failed != nil, "\(context): the fault fired")
                            #expect(run.errors.isEmpty, "\(context): \(run.errors)")
                            #expect(
                                run.acknowledgedAfterSyncFailure.isEmpty,
                                "\(context): \(run.acknowledgedAfterSyncFailure)")
                            try check(path, run.expectation, durableOnly: false, context: context)
                        }
                    }
                }
            }
        }
    }

    /// The power goes out at each operation of each workload (that operation and every later
    /// one fail, then everything not yet synced is undone): the store opens, every change
    /// acknowledged as durable is there, and nothing reads back wrong.
    @Test(arguments: workloads.keys.sorted())
    func powerLossAtEveryPointLosesNothingDurable(workload: String) throws {
        let plain = workloads[workload]!
        let flushed = plain.flatMap { [$0, Step.flush] }
        for (durability, steps) in [(Durability.always, plain), (.batched, flushed)] {
            let total = countOperations(steps, durability: durability)
            print("power-loss sweep: \(workload), \(durability): \(total + 1) points")
            for failAt in 1...total + 1 {
                let context = "\(workload) \(durability) power lost at \(failAt)/\(total)"
                try withTemporaryDirectory { dir in
                    let path = dir.child("s")
                    let plan = FaultInjection.Plan(root: path, failAt: failAt, errno: EIO, sticky: true)
                    let run = run(steps, at: path, durability: durability, plan: plan)
                    _ = FaultInjection.simulatePowerLoss()
                    #expect(run.errors.isEmpty, "\(context): \(run.errors)")
                    guard FileManager.default.fileExists(atPath: path + "/CURRENT") else {
                        // The power went out before the store was created: nothing was acknowledged.
                        #expect(run.expectation.allowed.values.allSatisfy { $0.contains(nil) }, "\(context)")
                        return
                    }
                    try check(path, run.expectation, durableOnly: true, context: context)
                }
            }
        }
    }
}
