import BlobStore
import BlobStoreRemote
import Foundation

/// One process of the load test: a local store of its own, a TieredStore on the cluster, and a
/// loop of puts (one in five) and gets of shared keys until the time is up.
struct LoadWorker {
    static let bucketMilliseconds = 250

    let remote: String
    let store: String
    let keys: Int
    let size: Int
    let seconds: Int
    let start: Int
    let capacity: Int
    let coolDown: Int
    let seed: UInt64

    init(_ options: LoadOptions) throws {
        remote = try options.string("remote")
        store = try options.string("store")
        keys = max(1, try options.integer("keys"))
        size = max(2, try options.integer("size"))
        seconds = try options.integer("seconds")
        start = try options.integer("start")
        capacity = try options.integer("capacity", default: 0)
        coolDown = try options.integer("cool-down", default: 1_000)
        seed = UInt64(try options.integer("seed", default: Int(getpid())))
    }

    /// The value of key `index`: from half to one and a half times `size` bytes, the same in
    /// every process.
    static func value(_ index: Int, size: Int) -> Data {
        let count = size / 2 + (index &* 7_919) % size
        var generator = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        var word: UInt64 = 0
        for position in 0..<count {
            if position % 8 == 0 {
                generator ^= generator << 13
                generator ^= generator >> 7
                generator ^= generator << 17
                word = generator
            }
            bytes[position] = UInt8(truncatingIfNeeded: word >> (UInt64(position % 8) * 8))
        }
        return Data(bytes)
    }

    func run() throws {
        var configuration = BlobStore.Configuration()
        configuration.durability = .none
        if capacity > 0 { configuration.limits = EvictionLimits(capacity: UInt64(capacity)) }
        let local = try BlobStore(at: store, configuration: configuration)
        let tiered = TieredStore(
            local: local, remote: try RemoteURL.backend(remote),
            configuration: RemoteConfiguration(coolDown: .milliseconds(coolDown)))
        let now = Int(Date().timeIntervalSince1970 * 1000)
        if start > now { usleep(UInt32(min(start - now, 60_000)) * 1000) }
        let end = start + seconds * 1000
        var buckets: [LoadBucket] = []
        var random = seed &* 0x2545_F491_4F6C_DD1D | 1
        while true {
            let time = Int(Date().timeIntervalSince1970 * 1000)
            guard time < end else { break }
            let index = max(0, (time - start) / Self.bucketMilliseconds)
            while buckets.count <= index { buckets.append(LoadBucket(t: buckets.count * Self.bucketMilliseconds)) }
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            let key = Int(random % UInt64(keys))
            let before = tiered.stats
            var bucket = LoadBucket(operations: 1)
            let expected = Self.value(key, size: size)
            do {
                if random >> 60 < 3 {  // 3 in 16
                    bucket.puts = 1
                    try tiered.put(expected, for: StoreKey("load-\(key)"))
                } else {
                    bucket.gets = 1
                    if let entry = try tiered.entry(for: StoreKey("load-\(key)")) {
                        if entry.tier != .remote { bucket.localHits = 1 }
                        bucket.wrongBytes = Self.wrongBytes(entry.value, expected)
                    } else {
                        try tiered.put(expected, for: StoreKey("load-\(key)"))  // produced on a double miss
                    }
                }
            } catch {
                bucket.thrown = 1
            }
            let after = tiered.stats
            if after.errors > before.errors, after.errors <= 5, let error = tiered.lastError {
                let when = String(format: "%.2f", Double(time - start) / 1000)
                FileHandle.standardError.write(Data("worker \(seed) at \(when) s: \(error.message)\n".utf8))
            }
            bucket.remoteHits = after.hits - before.hits
            bucket.remoteMisses = after.misses - before.misses
            bucket.remoteErrors = after.errors - before.errors
            bucket.coolDownSkips = after.coolDownSkips - before.coolDownSkips
            bucket.bytesUp = after.bytesUp - before.bytesUp
            bucket.bytesDown = after.bytesDown - before.bytesDown
            buckets[index] = buckets[index] + bucket
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var output = Data()
        for bucket in buckets {
            output.append(try encoder.encode(bucket))
            output.append(10)
        }
        FileHandle.standardOutput.write(output)
        try? tiered.saveStats()
    }

    /// The bytes of `got` that differ from `expected`, and those one has beyond the other.
    static func wrongBytes(_ got: Data, _ expected: Data) -> Int {
        zip(got, expected).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) } + abs(got.count - expected.count)
    }
}
