import BlobStore
import Foundation

/// One invocation of the shared peer benchmark (`../shared/bench/CONTRACT.md`): the phases run
/// in order on one store instance, each printing one JSON line.
struct PeerRun {
    static let usage = """
        usage: blobstore-bench --workload small|large --dir DIR [--data DATADIR] --phase LIST [--count N]
                               [--durability none|batched|always] [--no-verify] [--pack-threshold BYTES]
                               [--capacity BYTES] [--policy lru|sieve|s3fifo]

          --capacity, --policy  evict to a capacity (low water 0.9) by a policy (the default's): the
                                puts then run eviction rounds, and a get of an evicted key counts
                                as an error (docs/benchmarks.md, "Eviction policies")
        """

    var workload = ""
    var directory = ""
    var dataDirectory = "/tmp/peerbench/data"
    var phases: [String] = []
    var count: Int?
    var durability = Durability.none
    var verifyReads = true
    /// `Configuration.packThreshold`; `nil` keeps the default.
    var packThreshold: Int?
    /// `EvictionLimits.capacity`; `nil`: no limits.
    var capacity: UInt64?
    /// `EvictionLimits.policy`; `nil` keeps the default.
    var policy: EvictionPolicy?

    /// Parses the contract's arguments plus `--durability`, `--no-verify` and `--pack-threshold`.
    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let next = rest.popFirst() else { throw BenchError("\(option) needs a value\n\(Self.usage)") }
            return next
        }
        while let option = rest.popFirst() {
            switch option {
            case "--workload": workload = try value(option)
            case "--dir": directory = try value(option)
            case "--data": dataDirectory = try value(option)
            case "--phase": phases = try value(option).split(separator: ",").map(String.init)
            case "--count":
                guard let n = Int(try value(option)), n > 0 else { throw BenchError("--count needs a positive number") }
                count = n
            case "--durability": durability = try namedValue(try value(option), for: option)
            case "--no-verify": verifyReads = false
            case "--pack-threshold":
                guard let bytes = Int(try value(option)), bytes >= 0 else {
                    throw BenchError("--pack-threshold needs a number of bytes (0 packs nothing)")
                }
                packThreshold = bytes
            case "--capacity":
                guard let bytes = UInt64(try value(option)), bytes > 0 else {
                    throw BenchError("--capacity needs a number of bytes above 0")
                }
                capacity = bytes
            case "--policy": policy = try namedValue(try value(option), for: option)
            default: throw BenchError("unknown option '\(option)'\n\(Self.usage)")
            }
        }
        guard !workload.isEmpty, !directory.isEmpty, !phases.isEmpty else { throw BenchError(Self.usage) }
        for phase in phases where !["put", "get", "miss", "reopen"].contains(phase) {
            throw BenchError("unknown phase '\(phase)' (put, get, miss, reopen)")
        }
    }

    private var configuration: BlobStore.Configuration {
        var configuration = BlobStore.Configuration(durability: durability)
        configuration.verifyReads = verifyReads
        if let packThreshold { configuration.packThreshold = packThreshold }
        if let capacity {
            var limits = EvictionLimits(capacity: capacity)
            if let policy { limits.policy = policy }
            configuration.limits = limits
        }
        return configuration
    }

    func run() throws {
        let data = try PeerWorkload.load(workload, from: dataDirectory, count: count)
        var store: BlobStore? = nil
        // The open instance, opened (untimed) by the first phase that needs it.
        func opened() throws -> BlobStore {
            let open = try store ?? BlobStore(at: directory, configuration: configuration)
            store = open
            return open
        }
        for phase in phases {
            switch phase {
            case "put":
                let open = try opened()
                let bytes = data.logicalBytes
                let (seconds, _) = try Measure.time {
                    for (key, value) in zip(data.keys, data.values) { try open.put(value, for: key) }
                }
                emit(phase, ops: data.keys.count, seconds: seconds, bytes: bytes, errors: 0)
            case "get":
                let open = try opened()
                let (seconds, checked) = try Measure.time { try getAll(open, data) }
                emit(phase, ops: data.keys.count, seconds: seconds, bytes: checked.bytes, errors: checked.errors)
            case "miss":
                let open = try opened()
                let (seconds, errors) = try Measure.time {
                    try data.missKeys.reduce(0) { errors, key in try open.value(for: key) == nil ? errors : errors + 1 }
                }
                emit(phase, ops: data.missKeys.count, seconds: seconds, bytes: 0, errors: errors)
            default:  // reopen
                try store?.close()
                store = nil
                let start = Measure.now()
                let open = try BlobStore(at: directory, configuration: configuration)
                let opened = Measure.now()
                let checked = try getAll(open, data)
                let end = Measure.now()
                store = open
                emit(
                    phase, ops: data.keys.count, seconds: end - start, bytes: checked.bytes, errors: checked.errors,
                    openSeconds: opened - start)
            }
        }
        try store?.close()
    }

    /// Gets every key and compares the bytes with the expected value.
    private func getAll(_ store: BlobStore, _ data: PeerWorkload) throws -> (bytes: Int, errors: Int) {
        var bytes = 0
        var errors = 0
        for (key, expected) in zip(data.keys, data.values) {
            if let value = try store.value(for: key), value == expected {
                bytes += value.count
            } else {
                errors += 1
            }
        }
        return (bytes, errors)
    }

    private func emit(_ phase: String, ops: Int, seconds: Double, bytes: Int, errors: Int, openSeconds: Double? = nil) {
        var fields: [(String, Any)] = [("phase", phase), ("ops", ops), ("seconds", seconds), ("bytes", bytes)]
        if let openSeconds { fields.append(("open_seconds", openSeconds)) }
        fields += [("errors", errors), ("durability", durability.rawValue), ("verify", verifyReads)]
        Measure.emit(fields)
    }
}
