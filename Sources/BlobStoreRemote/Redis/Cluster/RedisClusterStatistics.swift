/// What a ``RedisClusterBackend`` did to keep up with its cluster, in this process.
public struct RedisClusterStatistics: Sendable, Equatable {
    /// `-MOVED` redirections followed: a slot had moved to another master.
    public var movedRedirections = 0
    /// `-ASK` redirections followed: a key of a slot being migrated was on its new master.
    public var askRedirections = 0
    /// Slot maps fetched from a node.
    public var topologyRefreshes = 0
    /// Refreshes that no node answered.
    public var failedRefreshes = 0
    /// Commands sent to a slot's new master after its old one could not be reached.
    public var retriesOnAnotherMaster = 0

    public init() {}
}
