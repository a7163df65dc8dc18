/// What a remote tier did: lookups, failures and traffic. ``TieredStore`` counts per process;
/// ``RemoteStatsFile`` adds them up across processes in the store's `remote-stats` file.
public struct RemoteStats: Sendable, Equatable, Codable {
    /// Local misses the remote answered with verified bytes.
    public var hits = 0
    /// Local misses the remote could not answer (no record, expired, dangling, rejected, or
    /// skipped during a cool-down).
    public var misses = 0
    /// Remote failures: unreachable, timed out, refused, or not speaking the protocol. Each
    /// starts a cool-down; operations that were under way when it started and fail too are not
    /// counted again.
    public var errors = 0
    /// Blobs whose bytes did not hash to their digest or had the wrong size: rejected, never
    /// stored locally.
    public var verificationFailures = 0
    /// Records whose blob the remote no longer holds (evicted), counted among the misses.
    public var danglingRecords = 0
    /// Blobs uploaded.
    public var uploads = 0
    /// Uploads skipped because the remote already held the blob (`HEAD`, `EXISTS`).
    public var skippedUploads = 0
    /// Operations that did not ask the remote because it was cooling down after an error.
    public var coolDownSkips = 0
    /// Bytes sent: blobs and records.
    public var bytesUp: UInt64 = 0
    /// Bytes received: blobs and records.
    public var bytesDown: UInt64 = 0

    /// All zero.
    public init() {}

    private static var counts: [WritableKeyPath<RemoteStats, Int>] {
        [
            \.hits, \.misses, \.errors, \.verificationFailures, \.danglingRecords, \.uploads, \.skippedUploads,
            \.coolDownSkips,
        ]
    }
    private static var byteCounts: [WritableKeyPath<RemoteStats, UInt64>] { [\.bytesUp, \.bytesDown] }

    /// The sum of two sets of counters; a sum too large for its type stays at the largest value.
    public static func + (lhs: RemoteStats, rhs: RemoteStats) -> RemoteStats {
        var sum = lhs
        for field in counts {
            let (value, overflow) = lhs[keyPath: field].addingReportingOverflow(rhs[keyPath: field])
            sum[keyPath: field] = overflow ? (rhs[keyPath: field] < 0 ? .min : .max) : value
        }
        for field in byteCounts {
            let (value, overflow) = lhs[keyPath: field].addingReportingOverflow(rhs[keyPath: field])
            sum[keyPath: field] = overflow ? .max : value
        }
        return sum
    }

    // MARK: - Coding

    private enum CodingKeys: String, CodingKey {
        case hits, misses, errors, verificationFailures, danglingRecords, uploads, skippedUploads, coolDownSkips
        case bytesUp, bytesDown
    }

    /// Decodes counters a file recorded: a missing counter is zero (a file written before it
    /// existed); a negative one is an error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func count(_ key: CodingKeys) throws -> Int {
            let value = try container.decodeIfPresent(Int.self, forKey: key) ?? 0
            guard value >= 0 else {
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "negative")
            }
            return value
        }
        hits = try count(.hits)
        misses = try count(.misses)
        errors = try count(.errors)
        verificationFailures = try count(.verificationFailures)
        danglingRecords = try count(.danglingRecords)
        uploads = try count(.uploads)
        skippedUploads = try count(.skippedUploads)
        coolDownSkips = try count(.coolDownSkips)
        bytesUp = try container.decodeIfPresent(UInt64.self, forKey: .bytesUp) ?? 0
        bytesDown = try container.decodeIfPresent(UInt64.self, forKey: .bytesDown) ?? 0
    }
}
