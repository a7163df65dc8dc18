import BlobStore
import BlobStoreTraces
import Foundation

/// Replays a trace through a policy's queue on its own (``EvictionQueue``), as libCacheSim's
/// `cache_get_base` runs a cache: a hit marks, a miss evicts until the object fits, then inserts.
/// The same queue the store keeps, without the store around it: what libCacheSim's figures are
/// compared with first.
enum ModelReplay {
    static func run(_ trace: [TraceRequest], policy: EvictionPolicy, capacity: UInt64) -> HitCount {
        switch policy {
        case .lru:
            var queue = LRUQueue<UInt64>()
            return replay(trace, &queue, capacity: capacity)
        case .sieve:
            var queue = SieveQueue<UInt64>()
            return replay(trace, &queue, capacity: capacity)
        case .s3fifo:
            var queue = S3FIFOQueue<UInt64>(capacity: capacity, ghostID: { $0 })
            return replay(trace, &queue, capacity: capacity)
        }
    }

    private static func replay<Queue: EvictionQueue<UInt64>>(
        _ trace: [TraceRequest], _ queue: inout Queue, capacity: UInt64
    ) -> HitCount {
        var count = HitCount()
        for request in trace {
            let hit = queue.request(request.id, size: UInt64(request.size), capacity: capacity)
            count.count(size: request.size, hit: hit)
        }
        return count
    }
}
