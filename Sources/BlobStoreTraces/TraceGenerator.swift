/// The synthetic traces the replayer runs, each a function of its ``TraceParameters`` (seed included)
/// alone. A request's time is its index in the trace (logical time); its size is
/// ``SizeModel/size(of:seed:)`` of its object.
package enum TraceGenerator {
    /// The Zipf exponents the generators accept.
    package static let alphas: ClosedRange<Double> = 0.6...1.2

    /// Requests to objects `0..<objects` whose popularity follows Zipf's law with exponent
    /// `alpha` (``ZipfDistribution``). Ranks are given ids by a seeded random permutation, so an
    /// id says nothing about its object's popularity.
    ///
    /// - Throws: ``TraceError/Code/invalidParameter`` for `alpha` outside ``alphas``, fewer
    ///   than 1 object, a negative number of requests, or a ``SizeModel/problem``.
    package static func zipf(alpha: Double, _ parameters: TraceParameters) throws(TraceError) -> [TraceRequest] {
        try zipf(alpha: alpha, parameters, scans: false)
    }

    /// ``zipf(alpha:_:)`` with one-hit-wonder scans: in every period of `scanEvery` requests,
    /// the last `scanLength` go to objects never asked for before or after, with ids `objects`,
    /// `objects + 1`, … (apart from the Zipf ids `0..<objects`); the others are Zipf.
    ///
    /// - Throws: What ``zipf(alpha:_:)`` throws, and ``TraceError/Code/invalidParameter`` unless
    ///   `0 < scanLength < scanEvery`.
    package static func zipfScan(alpha: Double, _ parameters: TraceParameters) throws(TraceError) -> [TraceRequest] {
        guard parameters.scanLength > 0, parameters.scanLength < parameters.scanEvery else {
            throw invalid(
                "a scan of \(parameters.scanLength) requests every \(parameters.scanEvery): the scan needs at "
                    + "least 1 request and fewer than its period")
        }
        return try zipf(alpha: alpha, parameters, scans: true)
    }

    /// Objects `0..<objects` asked for in order, again and again: with a cache smaller than the
    /// loop, LRU misses every request.
    ///
    /// - Throws: ``TraceError/Code/invalidParameter`` for fewer than 1 object, a negative number
    ///   of requests, or a ``SizeModel/problem``.
    package static func loop(_ parameters: TraceParameters) throws(TraceError) -> [TraceRequest] {
        try check(parameters)
        let objects = UInt64(parameters.objects)
        return (0..<parameters.requests).map { index in
            request(index, id: UInt64(index) % objects, parameters)
        }
    }

    // MARK: - Zipf

    private static func zipf(alpha: Double, _ parameters: TraceParameters, scans: Bool) throws(TraceError)
        -> [TraceRequest]
    {
        guard alphas.contains(alpha) else {
            throw invalid("a Zipf exponent of \(alpha): choose one from \(alphas.lowerBound) to \(alphas.upperBound)")
        }
        try check(parameters)
        var random = SplitMix64(seed: parameters.seed)
        // Fisher-Yates: the id of each rank.
        var ids = Array(0..<UInt64(parameters.objects))
        for index in ids.indices.reversed() {
            ids.swapAt(index, Int(random.next(below: UInt64(index + 1))))
        }
        let distribution = ZipfDistribution(objects: parameters.objects, alpha: alpha)
        var nextScanID = UInt64(parameters.objects)
        var requests: [TraceRequest] = []
        requests.reserveCapacity(parameters.requests)
        for index in 0..<parameters.requests {
            let id: UInt64
            if scans && index % parameters.scanEvery >= parameters.scanEvery - parameters.scanLength {
                id = nextScanID
                nextScanID += 1
            } else {
                id = ids[distribution.rank(at: random.nextUnit())]
            }
            requests.append(request(index, id: id, parameters))
        }
        return requests
    }

    // MARK: - Shared

    private static func request(_ index: Int, id: UInt64, _ parameters: TraceParameters) -> TraceRequest {
        TraceRequest(time: UInt64(index), id: id, size: parameters.sizes.size(of: id, seed: parameters.seed))
    }

    private static func check(_ parameters: TraceParameters) throws(TraceError) {
        guard parameters.objects >= 1 else {
            throw invalid("\(parameters.objects) objects: a trace needs at least 1")
        }
        guard parameters.requests >= 0 else {
            throw invalid("\(parameters.requests) requests: give 0 or more")
        }
        if let problem = parameters.sizes.problem { throw invalid(problem) }
    }

    private static func invalid(_ problem: String) -> TraceError {
        TraceError(.invalidParameter, "cannot generate a trace with \(problem)")
    }
}
