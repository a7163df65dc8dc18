import BlobStore

extension Runner {
    /// `config [<changes>] [--json]`: shows the limits recorded in the store, after making and
    /// recording `changes` if there are any. Only a change creates a store.
    func config(_ changes: LimitChanges, json: Bool) throws -> Int32 {
        let limits: EvictionLimits
        if changes.isEmpty {
            limits = try withStore(creating: false) { store in store.limits }
        } else {
            limits = try withStore { store in
                try store.recordLimits(changes.applied(to: store.limits))
                return store.limits  // as recorded: ages in whole milliseconds, at most 100 years
            }
        }
        if json {
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
        ])
    }
}

/// `config --json`: `{capacity, maxEntries, maxAgeSeconds, lowWater}`, `null` for a limit that
/// is not set.
private struct RecordedLimits: Encodable {
    var capacity: UInt64?
    var maxEntries: Int?
    var maxAgeSeconds: Double?
    var lowWater: Double

    init(_ limits: EvictionLimits) {
        capacity = limits.capacity
        maxEntries = limits.maxEntries
        maxAgeSeconds = limits.maxAge?.seconds
        lowWater = limits.lowWater
    }

    enum CodingKeys: String, CodingKey {
        case capacity, maxEntries, maxAgeSeconds, lowWater
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(capacity, forKey: .capacity)  // null, not absent
        try container.encode(maxEntries, forKey: .maxEntries)
        try container.encode(maxAgeSeconds, forKey: .maxAgeSeconds)
        try container.encode(lowWater, forKey: .lowWater)
    }
}
