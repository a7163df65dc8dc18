/// What a remote tier did: lookups, failures and traffic. ``TieredStore`` counts per process;
/// ``RemoteStatsFile`` adds them up across processes in the store's `remote-stats` file.
public struct RemoteStats: Sendable, Equatable, Codable {
    /// Local misses the remote answered with verified bytes.
    public var hits = 0
    /// Local misses the remote could not answer (no record, expired, dangling, rejected, or
    /// skipped during a cool-down).
    public var misses = 0
    /// Remote failures: unreachable, timed out, refused, or not speaking the protocol. Each
    /// starts a cool-down.
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

    /// The sum of two sets of counters.
    public static func + (lhs: RemoteStats, rhs: RemoteStats) -> RemoteStats {
        var sum = lhs
        sum.hits += rhs.hits
        sum.misses += rhs.misses
        sum.errors += rhs.errors
        sum.verificationFailures += rhs.verificationFailures
        sum.danglingRecords += rhs.danglingRecords
        sum.uploads += rhs.uploads
        sum.skippedUploads += rhs.skippedUploads
        sum.coolDownSkips += rhs.coolDownSkips
        sum.bytesUp += rhs.bytesUp
        sum.bytesDown += rhs.bytesDown
        return sum
    }
}
