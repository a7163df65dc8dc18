import BlobStore
import Foundation
import Glibc
import Synchronization

/// BlobStore's own scale workloads, beyond what the shared peer benchmark covers. Each prints one
/// JSON line per measurement; opens are measured in a fresh child process so that their memory
/// is theirs alone.
struct ScaleRun {
    static let usage = """
        usage: blobstore-bench scale [--dir DIR] [--entries N] [--distinct D] [--stream-mib M]
                                     [--only million,threads,stream,latency,disk] [--keep]
        """

    var directory = "/tmp/blobstore-bench"
    var entries = 1_000_000
    /// Distinct contents among the entries of the `million` store (entry i holds content i % D).
    var distinct = 100_000
    var streamMiB = 2048
    var only: Set<String> = ["million", "threads", "stream", "latency", "disk"]
    /// Keep the stores (their directory is printed) instead of deleting them at the end.
    var keep = false

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func number(_ option: String) throws -> Int {
            guard let text = rest.popFirst(), let n = Int(text), n > 0 else {
                throw BenchError("\(option) needs a positive number\n\(Self.usage)")
            }
            return n
        }
        while let option = rest.popFirst() {
            switch option {
            case "--dir":
                guard let path = rest.popFirst() else { throw BenchError("--dir needs a path") }
                directory = path
            case "--entries": entries = try number(option)
            case "--distinct": distinct = try number(option)
            case "--stream-mib": streamMiB = try number(option)
            case "--keep": keep = true
            case "--only":
                guard let list = rest.popFirst() else { throw BenchError("--only needs a list") }
                only = Set(list.split(separator: ",").map(String.init))
            default: throw BenchError("unknown option '\(option)'\n\(Self.usage)")
            }
        }
    }

    /// Runs the chosen workloads, each store in a new directory under `directory`, and deletes
    /// them all at the end. Deleting many files first would slow down the creations measured
    /// next: ext4 without a journal scans past recently freed inodes on every creation (see
    /// `../shared/bench/CONTRACT.md`). For the same reason `directory` gets `chattr +T`, so that
    /// each store directory starts in a block group of its own.
    func run() throws {
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let chattr = Process()
        chattr.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        chattr.arguments = ["+T", directory]
        chattr.standardError = FileHandle.nullDevice
        if (try? chattr.run()) != nil { chattr.waitUntilExit() }
        let run = directory + "/run-\(getpid())-\(Int(Measure.now()))"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false)
        defer {
            if keep {
                FileHandle.standardError.write(Data("kept the stores in \(run)\n".utf8))
            } else {
                try? FileManager.default.removeItem(atPath: run)
            }
        }
        if only.contains("stream") { try Self.runChild(["scale-stream", run, String(streamMiB)], label: "stream") }
        if only.contains("million") { try million(in: run) }
        if only.contains("threads") { try threads(in: run) }
        if only.contains("latency") { try latency(in: run) }
        if only.contains("disk") { try disk(in: run) }
    }

    /// Runs this executable with `arguments` and waits; its lines go to the same standard output.
    static func runChild(_ arguments: [String], label: String) throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe")
        child.arguments = arguments
        try child.run()
        child.waitUntilExit()
        guard child.terminationStatus == 0 else { throw BenchError("\(label) failed") }
    }

    // MARK: - A million entries

    /// Puts `entries` small values, then measures opens (journal only, then manifest), compaction
    /// and an eviction round that removes a tenth of the entries.
    private func million(in run: String) throws {
        let path = run + "/million"
        let store = try BlobStore(at: path, configuration: .init(durability: .none))
        let (putSeconds, _) = try Measure.time {
            for i in 0..<entries { try store.put(Self.smallValue(i % distinct), for: Self.key(i)) }
        }
        try store.close()
        Measure.emit([
            "scale": "put", "entries": entries, "distinct": distinct, "seconds": putSeconds,
            "ops_per_second": Double(entries) / putSeconds, "durability": "none",
        ])
        try Self.runChild(["scale-open", path, "open-journal"], label: "open-journal")
        let compacted = try BlobStore(at: path, configuration: .init(durability: .none))
        let (compactSeconds, report) = try Measure.time { try compacted.compact() }
        try compacted.close()
        Measure.emit([
            "scale": "compact", "entries": entries, "seconds": compactSeconds,
            "manifest_bytes": report.manifestBytes,
        ])
        try Self.runChild(["scale-open", path, "open-manifest"], label: "open-manifest")
        for policy in EvictionPolicy.allCases { try evict(path, policy: policy) }
    }

    /// One put over an entry limit of `entries` under `policy`, in a copy of the store: the
    /// eviction round it runs takes the store down to the low-water mark (0.9), evicting a tenth
    /// of the entries. Under SIEVE and S3-FIFO the round first builds the policy's queue from the
    /// manifest and the journal, which a process does once; so the store is filled back to the
    /// limit and the put that runs a second round is timed too.
    private func evict(_ path: String, policy: EvictionPolicy) throws {
        let copy = path + "-evict-" + policy.rawValue
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        defer { try? FileManager.default.removeItem(atPath: copy) }
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.limits = EvictionLimits(maxEntries: entries, policy: policy)
        let store = try BlobStore(at: copy, configuration: configuration)
        let before = try store.stats().entries
        let (seconds, _) = try Measure.time { try store.put(Self.smallValue(-1), for: Self.key(entries)) }
        let after = try store.stats().entries
        // Back up to the limit, then the put that runs the second round: the queue is kept now.
        var next = entries + 1
        while try store.stats().entries < entries {
            try store.put(Self.smallValue(next), for: Self.key(next))
            next += 1
        }
        let (second, _) = try Measure.time { try store.put(Self.smallValue(next), for: Self.key(next)) }
        let afterSecond = try store.stats().entries
        try store.close()
        let evicted = before + 1 - after
        Measure.emit([
            "scale": "evict", "policy": policy.rawValue, "entries": before, "evicted": evicted, "seconds": seconds,
            "microseconds_per_evicted": seconds * 1e6 / Double(max(evicted, 1)),
            "second_round_evicted": entries + 1 - afterSecond, "second_round_seconds": second,
        ])
    }

    /// In a child process: opens the store, prints the time and the resident memory the open
    /// added, per entry and beyond the keys' own bytes; then 100,000 verified gets of keys spread
    /// over the store and 100,000 misses, and the disk the store takes (`st_blocks`).
    static func measureOpen(_ path: String, label: String) throws {
        let before = Measure.residentMemory().current
        let (seconds, store) = try Measure.time { try BlobStore(at: path, configuration: .init(durability: .none)) }
        let after = Measure.residentMemory().current
        let count = try store.stats().entries
        let keyBytes = try store.entries().reduce(0) { $0 + $1.key.bytes.count }
        let probes = min(100_000, count)
        let stride = max(1, count / max(probes, 1))
        var wrong = 0
        let (getSeconds, _) = try Measure.time {
            for n in 0..<probes where try store.value(for: key(n * stride)) == nil { wrong += 1 }
        }
        let (missSeconds, _) = try Measure.time {
            for n in 0..<probes where try store.value(for: key(-1 - n)) != nil { wrong += 1 }
        }
        try store.close()
        let perEntry = Double(after - before) / Double(max(count, 1))
        let disk = Measure.allocatedBytes(under: path)
        Measure.emit([
            "scale": label, "entries": count, "seconds": seconds, "rss_added_bytes": after - before,
            "rss_bytes_per_entry": perEntry,
            "rss_bytes_per_entry_beyond_keys": perEntry - Double(keyBytes) / Double(max(count, 1)),
            "gets_per_second": Double(probes) / getSeconds, "misses_per_second": Double(probes) / missSeconds,
            "get_errors": wrong, "disk_bytes": disk, "disk_bytes_per_entry": Double(disk) / Double(max(count, 1)),
        ])
    }

    // MARK: - Get latency under durable puts

    /// Verified gets of 4 KiB values on one thread, each timed: first alone, then while another
    /// thread puts new values with durability `always` (each put synced before it returns).
    /// Prints the median and the 99th percentile of both.
    private func latency(in run: String) throws {
        let path = run + "/latency"
        let count = 20_000
        let loader = try BlobStore(at: path, configuration: .init(durability: .none))
        for i in 0..<count { try loader.put(Self.pageValue(i), for: Self.key(i)) }
        try loader.close()
        let store = try BlobStore(at: path, configuration: .init(durability: .always))
        func sample() throws -> [Double] {
            var times: [Double] = []
            times.reserveCapacity(count)
            for i in 0..<count {
                let start = Measure.now()
                guard try store.value(for: Self.key(i)) != nil else { throw BenchError("a latency key is missing") }
                times.append(Measure.now() - start)
            }
            return times.sorted()
        }
        let idle = try sample()
        let stop = Atomic<Bool>(false)
        let puts = Atomic<Int>(0)
        let writer = Thread {
            var i = count
            while !stop.load(ordering: .relaxed) {
                _ = try? store.put(Self.pageValue(i), for: Self.key(i))
                i += 1
                puts.add(1, ordering: .relaxed)
            }
        }
        writer.start()
        while puts.load(ordering: .relaxed) < 10 { usleep(1000) }
        let busy = try sample()
        stop.store(true, ordering: .relaxed)
        while !writer.isFinished { usleep(1000) }
        try store.close()
        func percentile(_ sorted: [Double], _ p: Double) -> Double {
            sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
        }
        Measure.emit([
            "scale": "latency", "gets": count, "idle_p50_us": percentile(idle, 0.5) * 1e6,
            "idle_p99_us": percentile(idle, 0.99) * 1e6, "busy_p50_us": percentile(busy, 0.5) * 1e6,
            "busy_p99_us": percentile(busy, 0.99) * 1e6, "always_puts_meanwhile": puts.load(ordering: .relaxed),
            "p99_ratio": percentile(busy, 0.99) / percentile(idle, 0.99),
        ])
    }

    // MARK: - Disk of small values

    /// 100,000 distinct 100-byte values: the disk the store takes (`st_blocks`, as `du` counts
    /// it, index included), against the values' own bytes; after the puts and after a compaction.
    private func disk(in run: String) throws {
        let path = run + "/disk"
        let count = 100_000
        let store = try BlobStore(at: path, configuration: .init(durability: .none))
        for i in 0..<count { try store.put(Data(String(format: "%0100d", i).utf8), for: Self.key(i)) }
        try store.close()
        let afterPuts = Measure.allocatedBytes(under: path)
        let compacting = try BlobStore(at: path, configuration: .init(durability: .none))
        try compacting.compact()
        let stored = try compacting.stats().storedBytes
        try compacting.close()
        let afterCompaction = Measure.allocatedBytes(under: path)
        let values = Double(count * 100)
        Measure.emit([
            "scale": "disk", "values": count, "value_bytes": 100, "disk_bytes_after_puts": afterPuts,
            "ratio_after_puts": Double(afterPuts) / values, "disk_bytes_after_compaction": afterCompaction,
            "ratio_after_compaction": Double(afterCompaction) / values, "stored_bytes": stored,
        ])
    }

    // MARK: - One thread against two

    /// 100,000 puts of distinct 4 KiB values, then verified gets of all, on one thread and on two;
    /// and the machine's own limit beside them: the same values copied and hashed (what a
    /// verified get of a packed value must do) with no store, on one thread and on two. Each get
    /// and copy figure is the median of three passes over the values.
    private func threads(in run: String) throws {
        let count = 100_000
        let passes = 3
        let values = (0..<count).map { Self.pageValue($0) }
        var getRates: [Int: Double] = [:]
        for threadCount in [1, 2] {
            let path = run + "/threads-\(threadCount)"
            let store = try BlobStore(at: path, configuration: .init(durability: .none))
            let putSeconds = try Self.parallel(threadCount, count) { try store.put(values[$0], for: Self.key($0)) }
            let errors = Mutex(0)
            let getSeconds = try Self.median(passes) {
                try Self.parallel(threadCount, count) { i in
                    if try store.value(for: Self.key(i)) != values[i] { errors.withLock { $0 += 1 } }
                }
            }
            try store.close()
            getRates[threadCount] = Double(count) / getSeconds
            Measure.emit([
                "scale": "threads", "threads": threadCount, "ops": count,
                "put_ops_per_second": Double(count) / putSeconds, "get_ops_per_second": Double(count) / getSeconds,
                "get_ratio_to_one_thread": Double(count) / getSeconds / getRates[1]!,
                "errors": errors.withLock { $0 }, "durability": "none", "verify": true,
            ])
        }
        var copyRates: [Int: Double] = [:]
        let zero = SHA256Digest(bytes: [UInt8](repeating: 0, count: 32))!
        for threadCount in [1, 2] {
            let wrong = Mutex(0)
            let seconds = try Self.median(passes) {
                try Self.parallel(threadCount, count) { i in
                    let copy = values[i].withUnsafeBytes { Data(bytes: $0.baseAddress!, count: $0.count) }
                    if SHA256Hasher.hash(copy) == zero { wrong.withLock { $0 += 1 } }
                }
            }
            copyRates[threadCount] = Double(count) / seconds
            Measure.emit([
                "scale": "threads-limit", "threads": threadCount, "ops": count,
                "copy_hash_per_second": Double(count) / seconds,
                "ratio_to_one_thread": Double(count) / seconds / copyRates[1]!, "zero_digests": wrong.withLock { $0 },
            ])
        }
    }

    /// The median of `passes` runs of `body`, which returns seconds.
    private static func median(_ passes: Int, _ body: () throws -> Double) rethrows -> Double {
        var seconds: [Double] = []
        for _ in 0..<passes { seconds.append(try body()) }
        return seconds.sorted()[passes / 2]
    }

    /// Runs `body(i)` for i in 0..<count, split into `threads` interleaved slices; returns the seconds.
    private static func parallel(_ threads: Int, _ count: Int, _ body: @escaping @Sendable (Int) throws -> Void)
        throws -> Double
    {
        let failure = Mutex<Error?>(nil)
        let start = Measure.now()
        DispatchQueue.concurrentPerform(iterations: threads) { slice in
            do {
                for i in stride(from: slice, to: count, by: threads) { try body(i) }
            } catch {
                failure.withLock { $0 = error }
            }
        }
        let seconds = Measure.now() - start
        if let error = failure.withLock({ $0 }) { throw error }
        return seconds
    }

    // MARK: - A large stream

    /// In a child process: streams a `streamMiB` file into a store and reads it back verified
    /// through a file handle; reports MB/s and the peak resident memory, which must not grow
    /// with the size.
    static func stream(in run: String, mebibytes streamMiB: Int) throws {
        let path = run + "/stream"
        let source = run + "/stream-source"
        try Self.writeSource(source, mebibytes: streamMiB)
        let bytes = Double(streamMiB) * 1_048_576
        let store = try BlobStore(at: path, configuration: .init(durability: .none))
        let key = StoreKey("stream")
        let peakBefore = Measure.residentMemory().peak
        let (putSeconds, _) = try Measure.time { try store.put(contentsOf: URL(fileURLWithPath: source), for: key) }
        let (getSeconds, read) = try Measure.time { () throws -> Int in
            guard let handle = try store.fileHandle(for: key) else { throw BenchError("the streamed value is missing") }
            defer { try? handle.close() }
            var total = 0
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let n = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                guard n > 0 else { break }
                total += n
            }
            return total
        }
        let peak = Measure.residentMemory().peak
        try store.close()
        Measure.emit([
            "scale": "stream", "mebibytes": streamMiB, "put_mb_per_second": bytes / putSeconds / 1e6,
            "get_verified_mb_per_second": bytes / getSeconds / 1e6, "read_bytes": read,
            "peak_rss_bytes": peak, "peak_rss_before_bytes": peakBefore, "durability": "none",
        ])
    }

    /// Writes `mebibytes` to `path`, 1 MiB at a time, each MiB distinct (``words(_:count:)``).
    private static func writeSource(_ path: String, mebibytes: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw BenchError("cannot create \(path)")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        for mebibyte in 0..<mebibytes {
            try words(mebibyte, count: 1 << 17).withUnsafeBytes { try handle.write(contentsOf: $0) }
        }
    }

    // MARK: - Keys and values

    static func key(_ i: Int) -> StoreKey { StoreKey("https://example.com/item/\(i)") }

    /// A distinct 64-byte value for each `i`.
    static func smallValue(_ i: Int) -> Data { Data(String(format: "%064d", i).utf8) }

    /// A distinct 4 KiB value for each `i`.
    static func pageValue(_ i: Int) -> Data {
        words(i, count: 512).withUnsafeBytes { Data($0) }
    }

    /// `count` 64-bit words, word j holding `seed` in its high half and j in its low half: bytes
    /// that differ for every seed. SHA-256 and the file system cost the same whatever the bytes
    /// (nothing is compressed), so they need not look random.
    static func words(_ seed: Int, count: Int) -> [UInt64] {
        (0..<count).map { UInt64(truncatingIfNeeded: seed) << 32 | UInt64($0) }
    }
}
