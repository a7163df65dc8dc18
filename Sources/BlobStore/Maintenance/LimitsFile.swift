/// The `limits` file at the top of a store: the eviction limits an app or `blobstore config`
/// recorded, so that every process (and `blobstore gc` with no options) applies the same ones.
///
/// ```
/// capacity 5242880
/// max-entries 10000
/// max-age-ms 604800000
/// low-water 0.9
/// policy s3fifo
/// ```
///
/// A line per limit that is set, `low-water` and `policy` always; unknown lines are ignored (a
/// newer version may add some). A file without `policy` (written before it) means the default,
/// S3-FIFO. An unknown policy name makes the file unreadable, as a value out
/// of range does: a store whose policy this version does not know is not evicted by another.
enum LimitsFile {
    /// `limits` as the file keeps them: the maximum age in whole milliseconds.
    static func normalized(_ limits: EvictionLimits) -> EvictionLimits {
        var normalized = limits
        normalized.maxAge = limits.maxAge.map { .milliseconds(Int64(clamping: $0.clampedNanoseconds / 1_000_000)) }
        return normalized
    }

    static func encode(_ limits: EvictionLimits) -> String {
        var text = ""
        if let capacity = limits.capacity { text += "capacity \(capacity)\n" }
        if let maxEntries = limits.maxEntries { text += "max-entries \(maxEntries)\n" }
        if let maxAge = limits.maxAge { text += "max-age-ms \(maxAge.clampedNanoseconds / 1_000_000)\n" }
        text += "low-water \(limits.lowWater)\n"
        text += "policy \(limits.policy.rawValue)\n"
        return text
    }

    /// Parses the file; `nil` when a line the format knows has a value out of range.
    static func decode(_ text: String) -> EvictionLimits? {
        var limits = EvictionLimits()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2 else { continue }
            switch parts[0] {
            case "capacity":
                guard let value = UInt64(parts[1]) else { return nil }
                limits.capacity = value
            case "max-entries":
                guard let value = Int(parts[1]) else { return nil }
                limits.maxEntries = value
            case "max-age-ms":
                guard let value = Int64(parts[1]) else { return nil }
                limits.maxAge = .milliseconds(value)
            case "low-water":
                guard let value = Double(parts[1]) else { return nil }
                limits.lowWater = value
            case "policy":
                guard let value = EvictionPolicy(rawValue: String(parts[1])) else { return nil }
                limits.policy = value
            default:
                continue
            }
        }
        return validationProblem(limits) == nil ? limits : nil
    }

    /// Why `limits` cannot be used, or `nil`.
    static func validationProblem(_ limits: EvictionLimits) -> String? {
        if limits.capacity == 0 { return "The capacity must be at least 1 byte." }
        if let maxEntries = limits.maxEntries, maxEntries < 1 { return "The maximum entry count must be at least 1." }
        if let maxAge = limits.maxAge, maxAge < .milliseconds(1) {
            return "The maximum age must be at least one millisecond."
        }
        if !(0.5...1).contains(limits.lowWater) {
            return "The low-water mark must be between 0.5 and 1 (a fraction of each limit)."
        }
        return nil
    }
}
