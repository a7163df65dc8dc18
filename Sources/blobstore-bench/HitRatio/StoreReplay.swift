import BlobStore
import BlobStoreTraces
import Foundation

/// Replays a trace through a BlobStore with the policy and a capacity: a request reads its key
/// (`value(for:)`, verified), and a miss puts the object. The store counts the disk its blobs
/// take (a packed value its needle, a loose one whole 4 KiB blocks), so the capacity is a
/// fraction of the trace's footprint counted the same way (``footprint(_:configuration:)``).
enum StoreReplay {
    /// The disk a trace's distinct objects would take in the store.
    static func footprint(_ trace: [TraceRequest], configuration: BlobStore.Configuration) -> UInt64 {
        var seen = Set<UInt64>()
        var bytes: UInt64 = 0
        for request in trace where seen.insert(request.id).inserted {
            bytes += configuration.diskBytes(ofValueSized: storedSize(request.size))
        }
        return bytes
    }

    /// Objects smaller than their 8-byte id are stored as the id: every object's value is
    /// distinct, or the store would keep one blob for many keys.
    static func storedSize(_ size: UInt32) -> Int { max(Int(size), 8) }

    /// How the replay opens its stores: no syncs, and every value a file of its own. The replay
    /// measures decisions, not the disk: with packed values each round would rewrite the pack its
    /// victims leave holes in (a pack counts whole against the capacity until it is rewritten),
    /// and the rewrites, not the policy, would set the replay's speed.
    static var configuration: BlobStore.Configuration {
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.packThreshold = 0
        return configuration
    }

    static func run(
        _ trace: [TraceRequest], policy: EvictionPolicy, capacity: UInt64, lowWater: Double, directory: String
    ) throws -> HitCount {
        var configuration = Self.configuration
        configuration.limits = EvictionLimits(capacity: capacity, lowWater: lowWater, policy: policy)
        let store = try BlobStore(at: directory, configuration: configuration)
        defer { try? store.close() }
        var count = HitCount()
        var value = Data()
        for request in trace {
            let key = StoreKey("\(request.id)")
            let hit = try store.value(for: key) != nil
            count.count(size: request.size, hit: hit)
            if !hit {
                let size = storedSize(request.size)
                value.count = size
                withUnsafeBytes(of: request.id.littleEndian) { id in
                    value.replaceSubrange(0..<8, with: id)
                }
                // A value as large as the whole capacity is refused (tooLarge): a miss either way.
                do {
                    try store.put(value, for: key)
                } catch let error as BlobStoreError where error.code == .tooLarge {
                    continue
                }
            }
        }
        return count
    }
}
