import Glibc

/// The system-wide monotonic clock, which every process on the machine reads alike: the times
/// on the workers' log lines order the events of different workers (`TortureChecker`).
enum MonotonicClock {
    /// Nanoseconds since an unspecified moment (boot, on Linux).
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
