import BlobStore
import BlobStoreTraces
import Foundation

/// `blobstore-bench hit-ratio`: replays traces at cache sizes that are fractions of each trace's
/// footprint, under each eviction policy, through the policy's queue alone (`model`) and through
/// a real store (`store`), and prints the miss ratios by requests and by bytes with the
/// replay's speed (docs/benchmarks.md, "Eviction policies"). `scripts/hit-ratio.sh` runs it
/// beside libCacheSim.
struct HitRatioRun {
    static let usage = """
        usage: blobstore-bench hit-ratio [--trace FILE]... [--generate SPEC]... [--objects N] [--requests N]
                                         [--seed N] [--sizes fixed:B|uniform:A-B|lognormal:MEDIAN,SIGMA]
                                         [--scan-every N] [--scan-length N] [--fractions 0.001,0.01,0.1]
                                         [--policies lru,sieve,s3fifo] [--engines model,store] [--low-water F]
                                         [--dir DIR] [--write-traces DIR] [--json]

          --trace FILE        a libCacheSim trace: .csv (time,id,size with a header) or oracleGeneral (other names)
          --generate SPEC     zipf:ALPHA, zipf-scan:ALPHA or loop (default: zipf:0.8, zipf-scan:0.8, loop)
          --objects, --requests, --seed, --sizes, --scan-every, --scan-length
                              the generated traces' shape (100000, 1000000, 1, fixed:4096, 1000, 100)
          --fractions LIST    cache sizes as fractions of each trace's footprint (0.001,0.01,0.1)
          --engines LIST      model: the policy's queue alone, as libCacheSim runs a cache;
                              store: a BlobStore with the policy and the capacity (default: both)
          --low-water F       the store's low-water mark (0.99: a round evicts 1 % of the capacity)
          --dir DIR           where the store engine's stores go (a new directory under /tmp)
          --write-traces DIR  also write each generated trace as DIR/<name>.csv, for scripts/hit-ratio-oracle.py
          --json              one JSON line per replay instead of the table
        """

    var traceFiles: [String] = []
    var specs: [TraceSpec] = []
    var parameters = TraceParameters(objects: 100_000, requests: 1_000_000, seed: 1)
    var fractions = ["0.001", "0.01", "0.1"].compactMap(CacheFraction.init)
    var policies: [EvictionPolicy] = [.lru, .sieve, .s3fifo]
    var engines = ["model", "store"]
    var lowWater = 0.99
    var directory: String?
    var traceOutput: String?
    var json = false

    init(arguments: [String]) throws {
        var rest = arguments[...]
        func value(_ option: String) throws -> String {
            guard let text = rest.popFirst() else { throw BenchError("\(option) needs a value\n\(Self.usage)") }
            return text
        }
        func number(_ option: String) throws -> Int {
            guard let number = Int(try value(option)), number > 0 else {
                throw BenchError("\(option) needs a positive whole number")
            }
            return number
        }
        func list(_ option: String) throws -> [String] {
            try value(option).split(separator: ",").map(String.init)
        }
        while let option = rest.popFirst() {
            switch option {
            case "--trace": traceFiles.append(try value(option))
            case "--generate":
                do { specs.append(try TraceSpec(parsing: try value(option))) } catch let error as TraceError {
                    throw BenchError("--generate: \(error)")
                }
            case "--objects": parameters.objects = try number(option)
            case "--requests": parameters.requests = try number(option)
            case "--seed": parameters.seed = UInt64(try number(option))
            case "--scan-every": parameters.scanEvery = try number(option)
            case "--scan-length": parameters.scanLength = try number(option)
            case "--sizes": parameters.sizes = try Self.sizeModel(try value(option))
            case "--fractions":
                fractions = try list(option).map { text in
                    guard let fraction = CacheFraction(text) else {
                        throw BenchError("--fractions: '\(text)' is not a fraction above 0 and at most 1, such as 0.01")
                    }
                    return fraction
                }
            case "--policies":
                policies = try list(option).map { try namedValue($0, for: option) }
            case "--engines":
                engines = try list(option)
                if let unknown = engines.first(where: { $0 != "model" && $0 != "store" }) {
                    throw BenchError("--engines: unknown engine '\(unknown)': model or store")
                }
            case "--low-water":
                guard let fraction = Double(try value(option)), (0.5...1).contains(fraction) else {
                    throw BenchError("--low-water needs a fraction from 0.5 to 1")
                }
                lowWater = fraction
            case "--dir": directory = try value(option)
            case "--write-traces": traceOutput = try value(option)
            case "--json": json = true
            default: throw BenchError("unknown option '\(option)'\n\(Self.usage)")
            }
        }
        if traceFiles.isEmpty && specs.isEmpty { specs = [.zipf(alpha: 0.8), .zipfScan(alpha: 0.8), .loop] }
    }

    /// `fixed:4096`, `uniform:100-10000` or `lognormal:4096,1.5`.
    static func sizeModel(_ text: String) throws -> SizeModel {
        let forms = "fixed:BYTES, uniform:MIN-MAX or lognormal:MEDIAN,SIGMA"
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { throw BenchError("--sizes: '\(text)' is not one of \(forms)") }
        let numbers = parts[1].split(whereSeparator: { $0 == "-" || $0 == "," }).map(String.init)
        let model: SizeModel
        switch (parts[0], numbers.count) {
        case ("fixed", 1):
            guard let size = UInt32(numbers[0]) else { throw BenchError("--sizes: bad size in '\(text)'") }
            model = .fixed(size)
        case ("uniform", 2):
            guard let low = UInt32(numbers[0]), let high = UInt32(numbers[1]), low <= high else {
                throw BenchError("--sizes: bad range in '\(text)'")
            }
            model = .uniform(low...high)
        case ("lognormal", 2):
            guard let median = UInt32(numbers[0]), let sigma = Double(numbers[1]) else {
                throw BenchError("--sizes: bad median or sigma in '\(text)'")
            }
            model = .logNormal(median: median, sigma: sigma)
        default:
            throw BenchError("--sizes: '\(text)' is not one of \(forms)")
        }
        if let problem = model.problem { throw BenchError("--sizes: \(problem)") }
        return model
    }

    func run() throws {
        var results: [HitRatioResult] = []
        for (name, trace) in try traces() {
            let footprint = TraceFootprint(trace)
            let storeFootprint = StoreReplay.footprint(trace, configuration: StoreReplay.configuration)
            if !json {
                print(
                    "\n## \(name): \(trace.count) requests, \(footprint.objects) objects, \(footprint.bytes) bytes "
                        + "(\(storeFootprint) on disk in the store)\n")
                print("| size | policy | engine | miss ratio | byte miss ratio | fewer misses than LRU | requests/s |")
                print("|---:|---|---|---:|---:|---:|---:|")
            }
            for fraction in fractions {
                for engine in engines {
                    var lruMisses: Double?
                    for policy in policies {
                        let result = try replay(
                            name, trace, engine: engine, policy: policy, fraction: fraction,
                            capacity: fraction.of(engine == "model" ? footprint.bytes : storeFootprint))
                        results.append(result)
                        if policy == .lru { lruMisses = result.missRatio }
                        if json {
                            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
                            continue
                        }
                        let fewer = lruMisses.map {
                            $0 > 0 ? String(format: "%.1f %%", ($0 - result.missRatio) / $0 * 100) : "-"
                        }
                        print(
                            "| \(fraction.value * 100) % | \(policy.rawValue) | \(engine) "
                                + String(
                                    format: "| %.2f %% | %.2f %% ", result.missRatio * 100, result.byteMissRatio * 100)
                                + "| \(policy == .lru ? "" : fewer ?? "") | \(Int(result.requestsPerSecond)) |")
                    }
                }
            }
        }
    }

    /// The traces by name: each file (its name without the extension) and each generated one.
    private func traces() throws -> [(String, [TraceRequest])] {
        var traces: [(String, [TraceRequest])] = []
        for path in traceFiles {
            let format: TraceFormat = path.hasSuffix(".csv") ? .csv : .oracleGeneral
            do {
                let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
                traces.append((name, try format.read(path: path)))
            } catch {
                throw BenchError("\(path): \(error)")
            }
        }
        for spec in specs {
            let name = spec.description.replacingOccurrences(of: ":", with: "-")
            do {
                let trace = try spec.generate(parameters)
                if let traceOutput {
                    try FileManager.default.createDirectory(atPath: traceOutput, withIntermediateDirectories: true)
                    try TraceFormat.csv.write(trace, path: traceOutput + "/" + name + ".csv")
                }
                traces.append((name, trace))
            } catch let error as TraceError {
                throw BenchError("\(spec): \(error)")
            }
        }
        return traces
    }

    private func replay(
        _ name: String, _ trace: [TraceRequest], engine: String, policy: EvictionPolicy, fraction: CacheFraction,
        capacity: UInt64
    ) throws -> HitRatioResult {
        let started = ContinuousClock.now
        let count: HitCount
        if engine == "model" {
            count = ModelReplay.run(trace, policy: policy, capacity: capacity)
        } else {
            let root = directory ?? NSTemporaryDirectory() + "/blobstore-hit-ratio-\(getpid())"
            let path = root + "/\(name)-\(fraction)-\(policy.rawValue)"
            try? FileManager.default.removeItem(atPath: path)
            defer { try? FileManager.default.removeItem(atPath: path) }
            count = try StoreReplay.run(trace, policy: policy, capacity: capacity, lowWater: lowWater, directory: path)
        }
        let elapsed = ContinuousClock.now - started
        return HitRatioResult(
            trace: name, policy: policy.rawValue, fraction: fraction.value, cacheBytes: capacity,
            requests: count.requests,
            missRatio: count.missRatio, byteMissRatio: count.byteMissRatio, engine: engine,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
            lowWater: engine == "store" ? lowWater : nil)
    }
}
