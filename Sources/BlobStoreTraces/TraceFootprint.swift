/// What a trace would fill a cache with that never evicts: its distinct objects and their bytes.
/// The replayer sizes its caches as fractions of ``bytes``.
package struct TraceFootprint: Sendable, Equatable {
    /// The number of distinct object ids.
    package var objects: Int
    /// The sum of the distinct objects' sizes, each counted once, with the size of its first
    /// request.
    package var bytes: UInt64

    package init(objects: Int, bytes: UInt64) {
        self.objects = objects
        self.bytes = bytes
    }

    /// The footprint of `requests`.
    package init(_ requests: some Sequence<TraceRequest>) {
        var seen = Set<UInt64>()
        var bytes: UInt64 = 0
        for request in requests where seen.insert(request.id).inserted {
            bytes += UInt64(request.size)
        }
        self.init(objects: seen.count, bytes: bytes)
    }
}
