/// What one worker did in one 250 ms interval, as it prints it (one JSON line).
struct LoadBucket: Codable {
    /// Milliseconds from the start to the interval's start.
    var t = 0
    var operations = 0
    var puts = 0
    var gets = 0
    /// Gets the local store answered.
    var localHits = 0
    var remoteHits = 0
    /// Lookups the remote did not answer, cool-down skips included (as `RemoteStats.misses`).
    var remoteMisses = 0
    var remoteErrors = 0
    var coolDownSkips = 0
    var bytesUp: UInt64 = 0
    var bytesDown: UInt64 = 0
    /// Bytes of values got that differ from the key's value: must stay 0.
    var wrongBytes = 0
    /// Errors that reached the caller: must stay 0.
    var thrown = 0

    static func + (a: LoadBucket, b: LoadBucket) -> LoadBucket {
        var sum = a
        sum.operations += b.operations
        sum.puts += b.puts
        sum.gets += b.gets
        sum.localHits += b.localHits
        sum.remoteHits += b.remoteHits
        sum.remoteMisses += b.remoteMisses
        sum.remoteErrors += b.remoteErrors
        sum.coolDownSkips += b.coolDownSkips
        sum.bytesUp += b.bytesUp
        sum.bytesDown += b.bytesDown
        sum.wrongBytes += b.wrongBytes
        sum.thrown += b.thrown
        return sum
    }

    /// Remote hits among the lookups that went past the local store.
    var hitRatio: Double {
        remoteHits + remoteMisses == 0 ? 0 : Double(remoteHits) / Double(remoteHits + remoteMisses)
    }
}
