import BlobStore
import Foundation

/// `blobstore-bench chunking`: the content-defined chunker at several average chunk sizes, for
/// choosing the ones large values are cut with (docs/benchmarks.md, "Content-defined chunking"):
/// its speed on one core beside one core's SHA-256, the mean chunk it cuts, a verified read of
/// the value's chunks on every core (`ChunkRecipe.firstDamagedChunk`), the recipe made on every
/// core (`ChunkRecipe.make`: the whole value hashed while it is cut, then its chunks), and what dedup finds
/// of a value stored again with ten 100-byte insertions, and of a pair of files (two versions of
/// a tree as tar archives: `scripts/chunking.sh` makes them from this repository's history).
struct ChunkingRun {
    static let usage = """
        usage: blobstore-bench chunking [--mib N] [--averages LIST] [--pair OLD NEW]...

          --mib N          the random value's size in MiB (default 256)
          --averages LIST  average chunk sizes in bytes, powers of two (default 16384,32768,65536,131072)
          --pair OLD NEW   also report the bytes of NEW in chunks that OLD does not have (repeatable)
        """

    var mebibytes = 256
    var averages = [16 << 10, 32 << 10, 64 << 10, 128 << 10]
    var pairs: [(old: String, new: String)] = []

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let text = rest.popFirst() else { throw BenchError("\(option) needs a value\n\(Self.usage)") }
            return text
        }
        while let option = rest.popFirst() {
            switch option {
            case "--mib":
                guard let number = Int(try value(option)), number > 0 else {
                    throw BenchError("--mib needs a positive whole number")
                }
                mebibytes = number
            case "--averages":
                averages = try value(option).split(separator: ",").map { text in
                    guard let average = Int(text), ChunkingParameters(average: average) != nil else {
                        throw BenchError("--averages: '\(text)' is not a power of two from 256 bytes to 64 MiB")
                    }
                    return average
                }
            case "--pair": pairs.append((try value(option), try value(option)))
            default: throw BenchError("unknown option '\(option)'\n\(Self.usage)")
            }
        }
    }

    func run() throws {
        let value = SplitMix64.bytes(mebibytes << 20, seed: 1)
        let edited = Self.inserting(count: 10, of: 100, into: value, seed: 2)
        let files = try pairs.map { pair in
            let read = { (path: String) in [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }
            return (try read(pair.old), try read(pair.new))
        }
        let hashing = Measure.best {
            value.withUnsafeBytes { bytes in
                let hasher = SHA256Hasher()
                for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                    hasher.update(UnsafeRawBufferPointer(rebasing: bytes[start..<min(bytes.count, start + (1 << 20))]))
                }
                _ = hasher.finalize()
            }
        }
        print("One core's SHA-256 on \(mebibytes) MiB: \(Self.rate(value.count, hashing)) GB/s\n")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        var header =
            "| average | min-max | mean chunk | chunking GB/s (one core) | recipe made on \(cores) cores: GB/s"
            + " | chunks verified on \(cores) cores: GB/s (of \(cores) × one core) | 10 × 100 B inserted: bytes added |"
        var rule = "|---:|---:|---:|---:|---:|---:|---:|"
        for pair in pairs {
            header +=
                " \((pair.new as NSString).lastPathComponent) after \((pair.old as NSString).lastPathComponent): new bytes |"
            rule += "---:|"
        }
        print(header)
        print(rule)
        for average in averages {
            let parameters = ChunkingParameters(average: average)!
            var lengths: [Int] = []
            let seconds = Measure.best {
                lengths = value.withUnsafeBytes { ContentDefinedChunker.lengths(of: $0, parameters) }
            }
            var made: ChunkRecipe?
            let making = Measure.best {
                made = value.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters, workers: cores) }
            }
            let recipe = made!
            let verifying = Measure.best {
                let damaged = value.withUnsafeBytes { recipe.firstDamagedChunk(in: $0, workers: cores) }
                precondition(damaged == nil, "the value's own recipe finds it damaged")
            }
            let verified = Double(value.count) / verifying / 1e9
            let added = Self.newBytes(of: edited, after: value, parameters)
            var row =
                "| \(average >> 10) KiB | \(parameters.minimum >> 10)-\(parameters.maximum >> 10) KiB"
                + " | \((value.count / lengths.count) >> 10) KiB | \(Self.rate(value.count, seconds))"
                + " | \(Self.rate(value.count, making))"
                + " | \(String(format: "%.2f (%.0f %%)", verified, verified * hashing * 1e9 * 100 / Double(value.count * cores)))"
                + " | \(Self.percent(added, of: edited.count)) |"
            for (old, new) in files {
                let fresh = Self.newBytes(of: new, after: old, parameters)
                row += " \(Self.percent(fresh, of: new.count)) |"
            }
            print(row)
        }
    }

    /// The bytes of `new` in chunks that `old`'s chunks do not include, both cut with `parameters`.
    static func newBytes(of new: [UInt8], after old: [UInt8], _ parameters: ChunkingParameters) -> Int {
        let chunks = { (bytes: [UInt8]) in bytes.withUnsafeBytes { ChunkRecipe.make(of: $0, parameters).chunks } }
        let known = Set(chunks(old).map(\.digest))
        return chunks(new).reduce(0) { $0 + (known.contains($1.digest) ? 0 : $1.length) }
    }

    /// `value` with `count` runs of `length` random bytes inserted at random places.
    static func inserting(count: Int, of length: Int, into value: [UInt8], seed: UInt64) -> [UInt8] {
        var edited = value
        var random = SplitMix64(seed: seed)
        for _ in 0..<count {
            let at = Int(random.next() % UInt64(edited.count + 1))
            edited.insert(contentsOf: SplitMix64.bytes(length, seed: random.next()), at: at)
        }
        return edited
    }

    static func rate(_ bytes: Int, _ seconds: Double) -> String {
        String(format: "%.2f", Double(bytes) / seconds / 1e9)
    }

    static func percent(_ part: Int, of whole: Int) -> String {
        String(format: "%.2f %%", Double(part) * 100 / Double(whole))
    }
}
