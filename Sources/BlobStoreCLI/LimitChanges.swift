import BlobStore

/// `config`'s options: the changes to make to the limits recorded in the store. A field left
/// `nil` keeps its recorded value.
public struct LimitChanges: Equatable, Sendable {
    /// A new value for one limit, or `none` to remove it.
    public enum Change<Value: Equatable & Sendable>: Equatable, Sendable {
        case set(Value)
        case remove

        var value: Value? {
            if case .set(let value) = self { return value }
            return nil
        }
    }

    /// `--capacity <size>|none`.
    public var capacity: Change<UInt64>?
    /// `--max-entries <n>|none`.
    public var maxEntries: Change<Int>?
    /// `--max-age <duration>|none`.
    public var maxAge: Change<Duration>?
    /// `--low-water <fraction>`.
    public var lowWater: Double?

    public init(
        capacity: Change<UInt64>? = nil, maxEntries: Change<Int>? = nil, maxAge: Change<Duration>? = nil,
        lowWater: Double? = nil
    ) {
        self.capacity = capacity
        self.maxEntries = maxEntries
        self.maxAge = maxAge
        self.lowWater = lowWater
    }

    /// `true` when no option was given: `config` only shows the limits.
    public var isEmpty: Bool { capacity == nil && maxEntries == nil && maxAge == nil && lowWater == nil }

    /// `limits` with these changes made.
    public func applied(to limits: EvictionLimits) -> EvictionLimits {
        var limits = limits
        if let capacity { limits.capacity = capacity.value }
        if let maxEntries { limits.maxEntries = maxEntries.value }
        if let maxAge { limits.maxAge = maxAge.value }
        if let lowWater { limits.lowWater = lowWater }
        return limits
    }
}
