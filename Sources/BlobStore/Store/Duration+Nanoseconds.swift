extension Duration {
    /// The duration in seconds, with its fraction.
    package var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in nanoseconds, clamped to 0 ... 100 years: configured timeouts and intervals
    /// that are negative or absurdly long never trap an arithmetic conversion.
    var clampedNanoseconds: UInt64 {
        let limit: Int64 = 100 * 365 * 86_400
        let (seconds, attoseconds) = components
        if seconds < 0 || (seconds == 0 && attoseconds < 0) { return 0 }
        if seconds >= limit { return UInt64(limit) * 1_000_000_000 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
    }
}
