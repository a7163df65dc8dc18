// The eviction limits that `gc` overrides and `config` records, with their ranges.

extension ValueParser<UInt64> {
    /// `--capacity`: a size of 1 byte or more.
    static var capacity: ValueParser { size.checked { $0 == 0 ? "the capacity must be at least 1 byte" : nil } }
}

extension ValueParser<Int> {
    /// `--max-entries`: a count of 1 or more.
    static var maxEntries: ValueParser { count.checked { $0 == 0 ? "the limit must be at least 1 entry" : nil } }
}

extension ValueParser<Duration> {
    /// `--max-age`: a duration of 1 millisecond or more.
    static var maxAge: ValueParser {
        duration.checked { $0 < .milliseconds(1) ? "the maximum age must be at least 1ms" : nil }
    }
}
