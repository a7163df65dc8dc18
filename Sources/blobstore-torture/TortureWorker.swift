import BlobStore
import Foundation

/// A crash-torture worker process: a seeded random mix of put, get, remove, compact and gc (and,
/// with eviction on, gc that evicts) on its own keys `<prefix>-0` … `<prefix>-<keyCount - 1>`,
/// logging each step as a `WorkerEvent` line on standard output. The driver SIGKILLs it at a
/// random moment.
///
/// Since no other process puts or removes its keys, the worker knows what each must hold (it
/// reads the states at the start of the round from standard input, one `<key> <version>` line per
/// key present) and checks every read and every remove's answer against that. The one change
/// another process may make is an eviction, so a read or remove that finds nothing where a
/// version was acknowledged is logged, not judged: the driver, which sees every worker's
/// evictions, decides whether one explains it (`TortureChecker`). From then on the key is absent.
struct TortureWorker {
    /// Keys per worker: few, so that puts overwrite and removes hit.
    static let keyCount = 24

    var store: String
    var prefix: String
    /// The version of the put at step `i` is `firstVersion + i`.
    var firstVersion: Int
    var seed: UInt64
    var operations: Int
    var durability: Durability
    /// Whether a quarter of the collections evict (`TortureOptions.eviction`).
    var eviction: Bool

    /// The limits of an evicting collection: the store holds up to 3 × 24 keys of up to about
    /// 8 KiB, so either limit evicts a good part of them; under each policy, so that SIEVE's and
    /// S3-FIFO's queues are built, replayed and snapshotted by processes that die at any moment.
    static let evictionLimits = EvictionPolicy.allCases.flatMap { policy in
        [EvictionLimits(capacity: 128 * 1024, policy: policy), EvictionLimits(maxEntries: 40, policy: policy)]
    }

    /// Whether the worker stores values of 32 KiB or more as chunks (of 4 KiB on average):
    /// three workers in four, drawn from the seed, so that chunked and whole puts of the same
    /// content meet.
    var chunks: Bool { seed % 4 != 0 }

    /// The arguments after `blobstore-torture worker` that recreate this worker.
    var arguments: [String] {
        [
            store, prefix, String(firstVersion), String(seed), String(operations), durability.rawValue,
            eviction ? "on" : "off",
        ]
    }

    /// The worker ``arguments`` describe, or `nil` if they do not describe one.
    init?(arguments: [String]) {
        guard arguments.count == 7, let firstVersion = Int(arguments[2]), let seed = UInt64(arguments[3]),
            let operations = Int(arguments[4]), let durability = Durability(rawValue: arguments[5]),
            arguments[6] == "on" || arguments[6] == "off"
        else { return nil }
        self.init(
            store: arguments[0], prefix: arguments[1], firstVersion: firstVersion, seed: seed, operations: operations,
            durability: durability, eviction: arguments[6] == "on")
    }

    init(
        store: String, prefix: String, firstVersion: Int, seed: UInt64, operations: Int, durability: Durability,
        eviction: Bool
    ) {
        self.store = store
        self.prefix = prefix
        self.firstVersion = firstVersion
        self.seed = seed
        self.operations = operations
        self.durability = durability
        self.eviction = eviction
    }

    /// Runs the operations; returns the exit status (1 after an operation threw).
    func run() -> Int32 {
        var states = readStates()
        var random = SplitMix64(seed: seed)
        var step = "open"
        do {
            var configuration = BlobStore.Configuration(durability: durability)
            if chunks {
                configuration.chunkThreshold = 32 << 10
                configuration.chunkSize = 4 << 10
            }
            let store = try BlobStore(at: store, configuration: configuration)
            log(.opened)
            for index in 0..<operations {
                let key = Int(random.next() % UInt64(Self.keyCount))
                let name = StoreKey("\(prefix)-\(key)")
                step = "operation \(index) on \(name)"
                switch random.next() % 100 {
                case 0..<45:
                    let version = firstVersion + index
                    log(.will(.put(key: key, version: version)))
                    try store.put(
                        TortureContent.bytes(key: name.string, version: version), for: name,
                        metadata: TortureContent.metadata(version: version))
                    states[key] = .version(version)
                    log(.put(key: key, version: version))
                case 45..<58:
                    log(.will(.remove(key: key)))
                    let existed = try store.remove(name)
                    if existed && states[key] == .absent {
                        log(.found(Finding(.lost, "\(name): remove returned true, expected \(states[key])")))
                    }
                    states[key] = .absent
                    log(.removed(key: key, existed: existed))
                case 58..<92:
                    log(.will(.read(key: key)))
                    let value = try store.value(for: name)
                    check(value, of: name, expected: states[key])
                    if value == nil { states[key] = .absent }
                    log(.read(key: key, hit: value != nil))
                case 92..<96:
                    log(.will(.compact))
                    try store.compact()
                    log(.compacted)
                case 96..<97 where eviction:
                    let limits = Self.evictionLimits[Int(random.next() % UInt64(Self.evictionLimits.count))]
                    log(.will(.evict))
                    let report = try store.collectGarbage(limits: limits, gracePeriod: .zero)
                    log(.evicted(entries: report.evictedEntries))
                default:
                    log(.will(.collect))
                    try store.collectGarbage(limits: EvictionLimits(), gracePeriod: .zero)
                    log(.collected)
                }
            }
            step = "close"
            log(.closing)
            try store.close()
            log(.done)
            return 0
        } catch {
            log(.found(Finding(.error, "\(prefix) \(step): \(error)")))
            return 1
        }
    }

    private func readStates() -> [KeyState] {
        var states = [KeyState](repeating: .absent, count: Self.keyCount)
        let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        for line in input.split(separator: "\n") {
            let numbers = line.split(separator: " ").compactMap { Int($0) }
            if numbers.count == 2 && states.indices.contains(numbers[0]) { states[numbers[0]] = .version(numbers[1]) }
        }
        return states
    }

    /// Logs a finding unless `value` is what `expected` says or is nothing: a read that finds a
    /// removed key is a loss (of the remove); any other bytes are wrong. A read that finds nothing
    /// where a version was acknowledged is judged by the driver (``WorkerLog/absences``).
    private func check(_ value: Data?, of key: StoreKey, expected: KeyState) {
        switch (expected, value) {
        case (_, nil):
            return
        case (.version(let version), let value?):
            if value != TortureContent.bytes(key: key.string, version: version) {
                let detail = "\(key): expected \(expected), read \(value.count) bytes of other content"
                log(.found(Finding(.wrongBytes, detail)))
            }
        case (.absent, let value?):
            log(.found(Finding(.lost, "\(key): expected \(expected), read \(value.count) bytes")))
        }
    }

    /// Writes `event` as one line, after the time on the monotonic clock (`WorkerLog`).
    private func log(_ event: WorkerEvent) {
        FileHandle.standardOutput.write(Data("\(MonotonicClock.nanoseconds()) \(event.line)\n".utf8))
    }
}
