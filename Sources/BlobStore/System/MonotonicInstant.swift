/// A point in time on the monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds: what the caching
/// proxy's deadlines, idle times and durations, and a memory tier's last check of an entry, are
/// measured on.
///
/// Ours rather than `ContinuousClock.Instant`, which the standard library does not freeze: code
/// outside the library handles that type through its value witnesses, a struct holding one
/// (`BlobStoreCache`'s `MemoryEntry`) is copied through them too, and an async function keeps each
/// one it holds in a task allocation. In the caching proxy that was 10k instructions of a 70k
/// forwarded request. This one is a plain integer.
public struct MonotonicInstant: Comparable, Sendable {
    /// Nanoseconds since an unspecified start (the system's boot, on Linux).
    public let nanoseconds: UInt64

    /// The instant `nanoseconds` after the clock's start.
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// Now.
    public static var now: MonotonicInstant { MonotonicInstant(nanoseconds: Syscalls.monotonicNanoseconds()) }

    public static func < (left: MonotonicInstant, right: MonotonicInstant) -> Bool {
        left.nanoseconds < right.nanoseconds
    }

    /// `duration` after `instant` (before it when negative), the duration taken as at most
    /// `Int64.max` nanoseconds (some 292 years: `Duration.seconds(.max)` is a deadline that does
    /// not pass) and the sum saturated at either end of the clock.
    public static func + (instant: MonotonicInstant, duration: Duration) -> MonotonicInstant {
        instant.advanced(byNanoseconds: nanoseconds(in: duration))
    }

    /// `offset` nanoseconds after this instant (before it when negative), saturated at either
    /// end of the clock: a deadline made at each read from a duration converted once (a
    /// `Duration`'s components are 128-bit arithmetic, some 200 instructions).
    public func advanced(byNanoseconds offset: Int64) -> MonotonicInstant {
        let sum =
            offset >= 0
            ? nanoseconds.addingReportingOverflow(UInt64(offset))
            : nanoseconds.subtractingReportingOverflow(offset.magnitude)
        return MonotonicInstant(nanoseconds: sum.overflow ? (offset >= 0 ? .max : 0) : sum.partialValue)
    }

    /// The time from `earlier` to `later` (negative when `later` is earlier).
    public static func - (later: MonotonicInstant, earlier: MonotonicInstant) -> Duration {
        later.nanoseconds >= earlier.nanoseconds
            ? .nanoseconds(Int64(clamping: later.nanoseconds - earlier.nanoseconds))
            : .nanoseconds(-Int64(clamping: earlier.nanoseconds - later.nanoseconds))
    }

    /// `duration` in whole nanoseconds, saturated at `Int64`'s range.
    public static func nanoseconds(in duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? .min : .max }
        let (total, overflowAgain) = whole.addingReportingOverflow(attoseconds / 1_000_000_000)
        guard !overflowAgain else { return seconds < 0 ? .min : .max }
        return total
    }
}
