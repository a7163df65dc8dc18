import Synchronization

/// The shard directories (`blobs/sha256/00` to `ff`) this process has found to be plain
/// directories, so that each is checked with `lstat` once, not on every read. Shared by every
/// copy of a ``StoreLayout``.
final class CheckedShards: Sendable {
    /// One bit per shard: bit `n % 64` of word `n / 64`.
    private let bits = Mutex(SIMD4<UInt64>())

    func contains(_ shard: UInt8) -> Bool {
        bits.withLock { $0[Int(shard >> 6)] & (1 << UInt64(shard & 63)) != 0 }
    }

    func insert(_ shard: UInt8) {
        bits.withLock { $0[Int(shard >> 6)] |= 1 << UInt64(shard & 63) }
    }
}
