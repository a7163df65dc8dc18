import BlobStore

/// `blobstore config [<changes>] [--json]`: its description, its value, and its run below. A
/// limit left `nil` keeps its recorded value.
struct ConfigCommand: SubcommandValue {
    /// `--capacity <size>|none`.
    var capacity: LimitChange<UInt64>?
    /// `--max-entries <n>|none`.
    var maxEntries: LimitChange<Int>?
    /// `--max-age <duration>|none`.
    var maxAge: LimitChange<Duration>?
    /// `--low-water <fraction>`.
    var lowWater: Double?
    /// `--policy lru|sieve|s3fifo`.
    var policy: EvictionPolicy?
    /// `--json`: print the limits as a JSON object.
    var json = false

    static let spec = CommandSpec<ConfigCommand>(
        .config,
        abstract: "Show or change the eviction limits recorded in the store.",
        discussion: "With no option, shows the limits recorded in the store. Each option changes one limit and "
            + "keeps the others; the new limits are recorded and shown. The recorded limits apply to "
            + "every process that opens the store without limits of its own (an app that passes "
            + "its own limits records those instead), to the eviction after each write and to "
            + "'blobstore gc'. When a write takes the store over a limit, entries are evicted, "
            + "expired and idle ones first, then the ones the eviction policy chooses, until it is "
            + "under the limit times the low-water mark.",
        options: [
            .value(
                "--capacity", valueName: "<size>",
                help: "The most bytes the blobs may take: bytes, or a number with K, M, G or T (powers "
                    + "of 1024), e.g. 500M or 1.5G; none removes the limit.", .orNone(.capacity), \.capacity),
            .value(
                "--max-entries", valueName: "<n>", help: "The most entries; none removes the limit.",
                .orNone(.maxEntries), \.maxEntries),
            .value(
                "--max-age", valueName: "<duration>",
                help: "Evict entries not read or written for longer than this: a number with ms, s, m, "
                    + "h, d or w, e.g. 7d; none removes the limit.", .orNone(.maxAge), \.maxAge),
            .value(
                "--low-water", valueName: "<fraction>",
                help: "The fraction of each limit an eviction goes down to, from 0.5 to 1.", default: "0.9",
                .lowWater, \.lowWater),
            .value(
                "--policy", valueName: "<policy>",
                help: "Which entries go when the store is over a limit: s3fifo or sieve (first in, "
                    + "first out, sparing the entries read since; entries read once leave before the "
                    + "ones read again), or lru (least recently used first).", default: "s3fifo", .choice,
                \.policy),
            .flag("--json", help: "Print the limits as a JSON object.", \.json),
        ])

    /// `true` when no limit was given: `config` only shows the limits.
    var changesNothing: Bool {
        capacity == nil && maxEntries == nil && maxAge == nil && lowWater == nil && policy == nil
    }

    /// `limits` with these changes made.
    func applied(to limits: EvictionLimits) -> EvictionLimits {
        var limits = limits
        if let capacity { limits.capacity = capacity.value }
        if let maxEntries { limits.maxEntries = maxEntries.value }
        if let maxAge { limits.maxAge = maxAge.value }
        if let lowWater { limits.lowWater = lowWater }
        if let policy { limits.policy = policy }
        return limits
    }

    func run(in runner: Runner) throws -> Int32 { try runner.config(self) }
}

extension Runner {
    /// `config [<changes>] [--json]`: shows the limits recorded in the store, after making and
    /// recording the changes if there are any. Only a change creates a store.
    func config(_ command: ConfigCommand) throws -> Int32 {
        let limits: EvictionLimits
        if command.changesNothing {
            limits = try withStore(creating: false) { store in store.limits }
        } else {
            limits = try withStore { store in
                try store.recordLimits(command.applied(to: store.limits))
                return store.limits  // as recorded: ages in whole milliseconds, at most 100 years
            }
        }
        if command.json {
            try output.writeJSON(RecordedLimits(limits))
        } else {
            try output.write(Self.summary(of: limits))
        }
        return ExitCode.success
    }

    /// One line per limit, `none` when unset; sizes and ages also exactly.
    static func summary(of limits: EvictionLimits) -> String {
        rows([
            ("capacity", limits.capacity.map(QuantityFormat.bytesAndExact) ?? "none"),
            ("max entries", limits.maxEntries.map(String.init) ?? "none"),
            (
                "max age",
                limits.maxAge.map { "\(QuantityFormat.duration($0)) (\(QuantityFormat.exactSeconds($0)) seconds)" }
                    ?? "none"
            ),
            ("low water", "\(limits.lowWater)"),
            ("policy", limits.policy.rawValue),
        ])
    }
}

/// `config --json`: `{capacity, maxEntries, maxAgeSeconds, lowWater, policy}`, `null` for a limit
/// that is not set.
private struct RecordedLimits: Encodable {
    var capacity: UInt64?
    var maxEntries: Int?
    var maxAgeSeconds: Double?
    var lowWater: Double
    var policy: String

    init(_ limits: EvictionLimits) {
        capacity = limits.capacity
        maxEntries = limits.maxEntries
        maxAgeSeconds = limits.maxAge?.seconds
        lowWater = limits.lowWater
        policy = limits.policy.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case capacity, maxEntries, maxAgeSeconds, lowWater, policy
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(capacity, forKey: .capacity)  // null, not absent
        try container.encode(maxEntries, forKey: .maxEntries)
        try container.encode(maxAgeSeconds, forKey: .maxAgeSeconds)
        try container.encode(lowWater, forKey: .lowWater)
        try container.encode(policy, forKey: .policy)
    }
}
