/// When a write is durable (survives a power loss) relative to when it returns.
///
/// Every mode survives a process crash with nothing acknowledged lost: each put is one
/// `write(2)` to the journal before it returns. They differ only for power loss.
public enum Durability: String, Sendable, CaseIterable {
    /// Page cache only. A power loss may lose recent entries, never yields wrong bytes.
    case none
    /// Group commit: blobs and journal are synced together by a background flush at most
    /// ``BlobStore/Configuration/batchInterval`` after a write, or by ``BlobStore/flush()-9tl4s``.
    case batched
    /// A put returns after the blob, its directory and the journal record are synced.
    case always
}
