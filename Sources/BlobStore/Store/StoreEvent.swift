/// An entry this process removed from a store, as ``BlobStore/events(bufferingPolicy:)``
/// reports it once the removal is in the journal.
public enum StoreEvent: Sendable, Hashable {
    /// Removed by ``BlobStore/remove(_:)`` or a `removeAll(where:)`, `removeAll(withKeyPrefix:)`,
    /// `removeAll(accessedBefore:)`, or replaced by a memory-only put.
    case removed(StoreKey)
    /// Removed by an eviction round (after a write, or in `collectGarbage`).
    case evicted(StoreKey, EvictionReason)
    /// Every entry removed by ``BlobStore/removeAll()``; `count` of them.
    case cleared(count: Int)
}
