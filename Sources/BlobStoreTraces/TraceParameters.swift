/// The numbers a generated trace is made from, apart from its shape (``TraceSpec``).
package struct TraceParameters: Sendable, Equatable {
    /// The objects the trace draws from: Zipf's population, or the loop's length.
    package var objects: Int
    /// The number of requests.
    package var requests: Int
    /// The seed: the same parameters and seed give the same trace, on any machine.
    package var seed: UInt64
    /// How objects are sized (4 KiB each unless given).
    package var sizes: SizeModel
    /// `zipf-scan`: the period, in requests, at the end of which each scan runs.
    package var scanEvery: Int
    /// `zipf-scan`: the requests of each scan, each to an object never asked for before or after.
    package var scanLength: Int

    package init(
        objects: Int, requests: Int, seed: UInt64, sizes: SizeModel = .fixed(4096), scanEvery: Int = 1000,
        scanLength: Int = 100
    ) {
        self.objects = objects
        self.requests = requests
        self.seed = seed
        self.sizes = sizes
        self.scanEvery = scanEvery
        self.scanLength = scanLength
    }
}
