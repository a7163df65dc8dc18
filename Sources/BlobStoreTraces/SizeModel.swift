import Glibc

/// How a generated trace sizes its objects. An object's size is a function of the trace's seed
/// and the object's id only, so every request for an object has the same size, and the same
/// object has the same size in every trace generated with that seed.
package enum SizeModel: Sendable, Equatable, CustomStringConvertible {
    /// Every object has this many bytes.
    case fixed(UInt32)
    /// Sizes drawn uniformly from the range, bounds included.
    case uniform(ClosedRange<UInt32>)
    /// Sizes whose logarithm is normal: half the objects are smaller than `median`, and `sigma`
    /// is the standard deviation of the natural logarithm (1 to 2 gives the heavy tail of web
    /// objects). Rounded to whole bytes and kept within 1...`UInt32.max`.
    case logNormal(median: UInt32, sigma: Double)

    /// The size of object `id` in traces generated with `seed`.
    package func size(of id: UInt64, seed: UInt64) -> UInt32 {
        // One stream per (seed, id), apart from the streams that order the requests.
        var random = SplitMix64(seed: SplitMix64.mix(SplitMix64.mix(seed ^ 0x5349_5A45) ^ id))
        switch self {
        case .fixed(let size):
            return size
        case .uniform(let range):
            let span = UInt64(range.upperBound - range.lowerBound) + 1
            return range.lowerBound + UInt32(random.next(below: span))
        case .logNormal(let median, let sigma):
            // Box-Muller: a standard normal number from two uniform ones (the first in (0, 1]).
            let radius = (-2 * log(1 - random.nextUnit())).squareRoot()
            let normal = radius * cos(2 * Double.pi * random.nextUnit())
            let size = (Double(median) * exp(sigma * normal)).rounded()
            return size >= 1 ? UInt32(min(size, Double(UInt32.max))) : 1
        }
    }

    /// Why the model cannot size a trace for libCacheSim (which skips requests of size 0), or
    /// `nil` when it can.
    package var problem: String? {
        switch self {
        case .fixed(0): "a fixed size of 0 bytes: give objects at least 1 byte"
        case .uniform(let range) where range.lowerBound == 0:
            "a uniform size from 0 bytes: start the range at 1 byte or more"
        case .logNormal(let median, let sigma) where median == 0 || !sigma.isFinite || sigma < 0:
            "a log-normal size with median \(median) and sigma \(sigma): the median must be at least 1 byte and "
                + "sigma a finite number from 0"
        default: nil
        }
    }

    package var description: String {
        switch self {
        case .fixed(let size): "fixed:\(size)"
        case .uniform(let range): "uniform:\(range.lowerBound)-\(range.upperBound)"
        case .logNormal(let median, let sigma): "lognormal:\(median),\(sigma)"
        }
    }
}
