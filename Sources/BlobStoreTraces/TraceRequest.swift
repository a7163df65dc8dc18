/// One request of a cache trace: at `time`, object `id` of `size` bytes was asked for.
///
/// The replayer (`blobstore-bench hit-ratio`) turns each request into a read of the
/// store, and a put on a miss.
///
/// A request of size 0 is kept as the trace has it: the readers do not drop it, and the replayer
/// decides what to do with it. libCacheSim skips such requests by default
/// (`ignore_size_zero_req`), so the generators never produce one (``SizeModel`` sizes are at
/// least 1).
package struct TraceRequest: Sendable, Equatable {
    /// When the request was made: seconds or a logical time (the request's index), as the trace
    /// says. The generators use the index.
    package var time: UInt64
    /// The object asked for.
    package var id: UInt64
    /// The object's size in bytes.
    package var size: UInt32

    package init(time: UInt64, id: UInt64, size: UInt32) {
        self.time = time
        self.id = id
        self.size = size
    }
}
