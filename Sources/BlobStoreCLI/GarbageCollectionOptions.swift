import BlobStore

/// `gc`'s options. Each limit given overrides the one recorded in the store, for this run only.
public struct GarbageCollectionOptions: Equatable, Sendable {
    /// `--capacity <size>`, in bytes.
    public var capacity: UInt64?
    /// `--max-entries <n>`.
    public var maxEntries: Int?
    /// `--max-age <duration>`.
    public var maxAge: Duration?
    /// `--grace <duration>`; `nil` is the library's default grace period (one hour).
    public var grace: Duration?
    /// `--dry-run`.
    public var dryRun: Bool
    /// `--json`.
    public var json: Bool

    public init(
        capacity: UInt64? = nil, maxEntries: Int? = nil, maxAge: Duration? = nil, grace: Duration? = nil,
        dryRun: Bool = false, json: Bool = false
    ) {
        self.capacity = capacity
        self.maxEntries = maxEntries
        self.maxAge = maxAge
        self.grace = grace
        self.dryRun = dryRun
        self.json = json
    }

    /// `recorded` with each limit given on the command line in place of the recorded one.
    ///
    /// - Parameter recorded: The store's limits (``BlobStore/BlobStore/limits``).
    /// - Returns: The limits for this run; the low-water mark is always the recorded one.
    public func limits(over recorded: EvictionLimits) -> EvictionLimits {
        var limits = recorded
        if let capacity { limits.capacity = capacity }
        if let maxEntries { limits.maxEntries = maxEntries }
        if let maxAge { limits.maxAge = maxAge }
        return limits
    }
}
