import BlobStore
import Foundation
import Glibc

/// `blobstore-bench large`: large values through the store, stored whole and as chunks, beside
/// raw files and this machine's SHA-256 on one core and on every core (docs/benchmarks.md,
/// "Large values, whole and chunked"). For each size and each way of storing: a put (durability `none`) and a
/// verified get, each the best of three (three values, each read once: a process verifies a
/// blob the first time it reads it), and how many cores the best chunked put kept busy; the same bytes written to and read from a plain file; then
/// a 4 KiB range read at random offsets of a value of `--range-mib` MiB stored whole, through a
/// descriptor the store verified (`fileHandle(for:)`, so each read hashes the whole value), and
/// of the same size stored as chunks (`value(for:in:)`, which checks only the chunks it reads);
/// last, the disk a chunked value of the largest size adds when stored again with ten small
/// insertions.
struct LargeRun {
    static let usage = """
        usage: blobstore-bench large [--dir DIR] [--sizes LIST] [--range-mib N] [--range-reads N]

          --dir DIR          where the store and the raw files go (a new directory under /tmp)
          --sizes LIST       value sizes in MiB (default 16,256)
          --range-mib N      the value ranges are read from, in MiB (default 1024)
          --range-reads N    4 KiB range reads timed: of the whole value, and of the chunked one first
                             after opening (each a new handle); then N × 100 more (default 5)
        """

    var directory: String?
    var sizes = [16, 256]
    var rangeMiB = 1024
    var rangeReads = 5

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let text = rest.popFirst() else { throw BenchError("\(option) needs a value\n\(Self.usage)") }
            return text
        }
        func number(_ text: String, _ option: String) throws -> Int {
            guard let number = Int(text), number > 0 else { throw BenchError("\(option) needs positive whole numbers") }
            return number
        }
        while let option = rest.popFirst() {
            switch option {
            case "--dir": directory = try value(option)
            case "--sizes": sizes = try value(option).split(separator: ",").map { try number(String($0), option) }
            case "--range-mib": rangeMiB = try number(try value(option), option)
            case "--range-reads": rangeReads = try number(try value(option), option)
            default: throw BenchError("unknown option '\(option)'\n\(Self.usage)")
            }
        }
    }

    func run() throws {
        let run = directory ?? NSTemporaryDirectory() + "blobstore-large-\(getpid())"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(atPath: run) } }
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print(
            "| size | SHA-256 one core | × \(cores) cores | raw file write | raw file read | put whole | put chunked"
                + " (cores busy) | verified get whole | verified get chunked |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        var chunked = BlobStore.Configuration(durability: .none)
        chunked.chunkThreshold = 1 << 20
        for (round, mebibytes) in sizes.enumerated() {
            let value = Data(SplitMix64.bytes(mebibytes << 20, seed: UInt64(round + 1)))
            let hashing = Measure.best { _ = value.withUnsafeBytes { SHA256Hasher.hash($0) } }
            let file = "\(run)/raw-\(mebibytes)"
            let writing = Measure.best { try? value.write(to: URL(fileURLWithPath: file)) }
            let reading = Measure.best { _ = FileManager.default.contents(atPath: file) }
            let whole = try putAndGet(value, at: "\(run)/store-\(mebibytes)", .init(durability: .none))
            let cut = try putAndGet(value, at: "\(run)/chunked-\(mebibytes)", chunked)
            try? FileManager.default.removeItem(atPath: file)
            let rate = { (seconds: Double) in String(format: "%.0f MB/s", Double(value.count) / seconds / 1e6) }
            print(
                "| \(mebibytes) MiB | \(rate(hashing)) | \(rate(hashing / Double(cores))) | \(rate(writing))"
                    + " | \(rate(reading)) | \(rate(whole.put)) | \(rate(cut.put)) (\(String(format: "%.2f", cut.cores)))"
                    + " | \(rate(whole.get))"
                    + " | \(rate(cut.get)) |")
        }
        try rangeRead(in: run)
        try chunkedRangeRead(in: run)
        try editedValue(in: run)
    }

    /// The disk a value of the largest size takes when it is stored again with 100 bytes
    /// inserted at 10 evenly spread places, chunked, as the store counts it (`storedBytes`).
    private func editedValue(in run: String) throws {
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.chunkThreshold = 1 << 20
        let size = (sizes.max() ?? 256) << 20
        let original = Data(SplitMix64.bytes(size, seed: 12))
        var edited = Data()
        let step = size / 11
        for place in 0...10 {
            edited.append(original[place * step..<(place == 10 ? size : (place + 1) * step)])
            if place < 10 { edited.append(Data(SplitMix64.bytes(100, seed: UInt64(100 + place)))) }
        }
        let store = try BlobStore(at: "\(run)/store-edited", configuration: configuration)
        defer { try? store.close() }
        try store.put(original, for: "original")
        let one = try store.stats().storedBytes
        try store.put(edited, for: "edited")
        let added = try store.stats().storedBytes - one
        print(
            String(
                format: "A %d MiB value stored again with 100 bytes inserted at 10 places: %d bytes more on disk"
                    + " (%.2f %% of the value; the first took %d)", size >> 20, added,
                Double(added) / Double(size) * 100, one))
    }

    /// 4 KiB at random offsets of one large chunked value (`value(for:in:)`, which reads and
    /// checks the chunks that hold the range): the first read after opening the store, whose
    /// manifest holds the recipe (cold: the recipe is decoded and the packs mapped), of
    /// `rangeReads` handles opened one after the other, then `rangeReads × 100` more of one
    /// handle (warm).
    private func chunkedRangeRead(in run: String) throws {
        var configuration = BlobStore.Configuration(durability: .none)
        configuration.chunkThreshold = 1 << 20
        let path = "\(run)/store-chunked-range"
        let key = StoreKey("range")
        let size = rangeMiB << 20
        try {
            let store = try BlobStore(at: path, configuration: configuration)
            defer { try? store.close() }
            try store.put(Data(SplitMix64.bytes(size, seed: 9)), for: key)
            try store.compact()
        }()
        var random = SplitMix64(seed: 11)
        func read(_ store: BlobStore) throws -> Double {
            let offset = Int(random.next() % UInt64(size - 4096))
            let (seconds, read) = try Measure.time { try store.value(for: key, in: offset..<offset + 4096) }
            guard read?.count == 4096 else { throw BenchError("a chunked range read came short") }
            return seconds
        }
        // Each the first read of a process's handle opened anew: the recipe decoded, the packs mapped.
        var cold: [Double] = []
        for _ in 0..<rangeReads {
            let store = try BlobStore(at: path, configuration: configuration)
            defer { try? store.close() }
            cold.append(try read(store))
        }
        let store = try BlobStore(at: path, configuration: configuration)
        defer { try? store.close() }
        _ = try read(store)
        var times = try (0..<(rangeReads * 100)).map { _ in try read(store) }
        cold.sort()
        times.sort()
        print(
            String(
                format: "4 KiB verified range from a %d MiB chunked value: first after opening p50 %.3f ms, max %.3f ms"
                    + " (%d opens); then p50 %.3f ms, p99 %.3f ms (%d reads)", rangeMiB, cold[cold.count / 2] * 1e3,
                cold.last! * 1e3, cold.count, times[times.count / 2] * 1e3, times[times.count * 99 / 100] * 1e3,
                times.count))
    }

    /// The best of three puts into a new store at `path` (`value`, then two of its size with
    /// other bytes) with the processor time it took in cores (user and system time over its
    /// wall time), and the best of three verified gets, one of each value.
    private func putAndGet(_ value: Data, at path: String, _ configuration: BlobStore.Configuration) throws -> (
        put: Double, cores: Double, get: Double
    ) {
        let store = try BlobStore(at: path, configuration: configuration)
        defer { try? store.close() }
        var (putting, cores) = (Double.infinity, 0.0)
        for index in 0..<3 {
            // Bytes of its own each time: the same bytes again (or most of them, chunked) would
            // be a dedup, not a put.
            let distinct = index == 0 ? value : Data(SplitMix64.bytes(value.count, seed: UInt64(1000 + index)))
            let processor = Self.processorSeconds()
            let seconds = try Measure.time { try store.put(distinct, for: StoreKey("large-\(index)")) }.seconds
            if seconds < putting { (putting, cores) = (seconds, (Self.processorSeconds() - processor) / seconds) }
        }
        // Each value read once: a process verifies a blob once and trusts it afterwards.
        var getting = Double.infinity
        for index in 0..<3 {
            let (seconds, read) = try Measure.time { try store.value(for: StoreKey("large-\(index)")) }
            guard read?.count == value.count else { throw BenchError("a large value is missing") }
            getting = min(getting, seconds)
        }
        try store.close()
        try? FileManager.default.removeItem(atPath: path)
        return (putting, cores, getting)
    }

    /// The user and system time this process has taken, in seconds.
    private static func processorSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// 4 KiB at random offsets of one large value, each through a descriptor the store verified.
    private func rangeRead(in run: String) throws {
        let store = try BlobStore(at: "\(run)/store-range", configuration: .init(durability: .none))
        let key = StoreKey("range")
        try store.put(Data(SplitMix64.bytes(rangeMiB << 20, seed: 9)), for: key)
        var random = SplitMix64(seed: 10)
        var times: [Double] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<rangeReads {
            let offset = off_t(random.next() % UInt64((rangeMiB << 20) - 4096))
            let (seconds, count) = try Measure.time { () throws -> Int in
                guard let handle = try store.fileHandle(for: key) else {
                    throw BenchError("the range value is missing")
                }
                defer { try? handle.close() }
                return buffer.withUnsafeMutableBytes { pread(handle.fileDescriptor, $0.baseAddress, 4096, offset) }
            }
            guard count == 4096 else { throw BenchError("a range read came short") }
            times.append(seconds)
        }
        try store.close()
        times.sort()
        print(
            String(
                format: "\n4 KiB verified range from a %d MiB value: p50 %.1f ms, max %.1f ms (%d reads)", rangeMiB,
                times[times.count / 2] * 1e3, times.last! * 1e3, rangeReads))
    }
}
