import Glibc

/// Zipf's law over `objects` ranks: rank k (1-based) is drawn with probability
/// `(1 / k^alpha) / H`, H the sum of `1 / j^alpha` over all ranks.
///
/// Sampled by inverting the exact cumulative distribution: a table of the partial sums, one
/// `Double` (8 bytes) per rank, and a binary search per draw (log2 of the ranks steps). Exact up
/// to `Double`'s rounding of the sums, which stays far below the sampling noise of any trace.
struct ZipfDistribution {
    /// `cumulative[i]` is the sum of `1 / k^alpha` for k from 1 to i + 1.
    private let cumulative: [Double]

    /// - Precondition: `objects >= 1` and `alpha > 0` (``TraceGenerator`` checks both first).
    init(objects: Int, alpha: Double) {
        precondition(objects >= 1 && alpha > 0, "ZipfDistribution(objects: \(objects), alpha: \(alpha))")
        var sum = 0.0
        cumulative = (1...objects).map { rank in
            sum += 1 / pow(Double(rank), alpha)
            return sum
        }
    }

    /// The 0-based rank (0 the most popular) that the uniform number `unit` in `[0, 1)` falls on:
    /// the first whose partial sum exceeds `unit` times the total.
    func rank(at unit: Double) -> Int {
        let target = unit * cumulative[cumulative.count - 1]
        var low = 0
        var high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] > target {
                high = middle
            } else {
                low = middle + 1
            }
        }
        return low
    }
}
