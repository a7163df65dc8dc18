import Foundation
import Testing

@testable import BlobStoreTraces

/// The seeded generators (TraceGenerator, ZipfDistribution, SizeModel) and TraceSpec.
@Suite struct TraceGeneratorTests {
    let parameters = TraceParameters(objects: 1000, requests: 20_000, seed: 7, sizes: .uniform(100...10_000))
    let specs: [TraceSpec] = [.zipf(alpha: 0.8), .zipfScan(alpha: 1.0), .loop]

    // MARK: - Determinism

    @Test func sameSeedGivesSameTrace() throws {
        for spec in specs {
            #expect(try spec.generate(parameters) == spec.generate(parameters), "\(spec)")
        }
    }

    @Test func differentSeedGivesDifferentTrace() throws {
        var other = parameters
        other.seed = 8
        for spec in specs {
            #expect(try spec.generate(parameters) != spec.generate(other), "\(spec)")
        }
    }

    /// Pins the generators' output, so that a change to them (which would make earlier
    /// measurements irreproducible) is noticed.
    @Test func generatedTracesArePinned() throws {
        let pinned = TraceParameters(objects: 100, requests: 4, seed: 1, sizes: .uniform(1...1000))
        let zipf = try TraceGenerator.zipf(alpha: 0.8, pinned)
        #expect(zipf.map(\.time) == [0, 1, 2, 3])
        #expect(zipf.map(\.id) == [2, 98, 4, 33])
        #expect(zipf.map(\.size) == [967, 43, 148, 776])
        #expect(SizeModel.logNormal(median: 4096, sigma: 1).size(of: 3, seed: 1) == 1769)
    }

    /// The reference implementation's first outputs for seed 0 (Vigna's splitmix64.c).
    @Test func splitMixMatchesTheReference() {
        var random = SplitMix64(seed: 0)
        #expect(random.next() == 0xE220_A839_7B1D_CDAF)
        #expect(random.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    // MARK: - Zipf

    /// Rank 1 is drawn 10^alpha times as often as rank 10, within 15 %, over 200,000 draws.
    @Test(arguments: [0.6, 0.8, 1.0, 1.2])
    func zipfRanksFollowTheLaw(alpha: Double) {
        let distribution = ZipfDistribution(objects: 1000, alpha: alpha)
        var random = SplitMix64(seed: 42)
        var counts = [Int](repeating: 0, count: 1000)
        for _ in 0..<200_000 { counts[distribution.rank(at: random.nextUnit())] += 1 }
        let ratio = Double(counts[0]) / Double(counts[9])
        let expected = pow(10, alpha)
        #expect(abs(ratio - expected) / expected < 0.15, "ratio \(ratio), expected \(expected)")
        // And the tail: rank 1 against rank 100.
        let tail = Double(counts[0]) / Double(counts[99])
        #expect(abs(tail - pow(100, alpha)) / pow(100, alpha) < 0.25, "rank 1 / rank 100: \(tail)")
    }

    @Test func zipfEdgesOfTheUnitIntervalStayInRange() {
        let distribution = ZipfDistribution(objects: 10, alpha: 1.0)
        #expect(distribution.rank(at: 0) == 0)
        #expect(distribution.rank(at: 1 - 0x1p-53) == 9)
        #expect(ZipfDistribution(objects: 1, alpha: 0.6).rank(at: 0.99) == 0)
    }

    /// The trace's most requested ids follow the law too, and are not the lowest ids.
    @Test func zipfTraceIdsAreShuffledRanks() throws {
        let trace = try TraceGenerator.zipf(
            alpha: 0.8, TraceParameters(objects: 1000, requests: 200_000, seed: 3))
        var counts: [UInt64: Int] = [:]
        for request in trace { counts[request.id, default: 0] += 1 }
        #expect(counts.keys.allSatisfy { $0 < 1000 })
        let ranked = counts.sorted { $0.value > $1.value }
        let ratio = Double(ranked[0].value) / Double(ranked[9].value)
        #expect(abs(ratio - pow(10, 0.8)) / pow(10, 0.8) < 0.15, "ratio \(ratio)")
        #expect(Set(ranked.prefix(10).map(\.key)) != Set(0..<10))
        #expect(trace.map(\.time) == (0..<200_000).map { UInt64($0) })
    }

    // MARK: - Scans and loops

    @Test func scanIdsNeverRepeat() throws {
        var scanning = parameters
        scanning.scanEvery = 50
        scanning.scanLength = 10
        let trace = try TraceGenerator.zipfScan(alpha: 1.0, scanning)
        let scanIDs = trace.filter { $0.id >= 1000 }.map(\.id)
        #expect(scanIDs.count == 20_000 / 50 * 10)
        #expect(scanIDs == (0..<UInt64(scanIDs.count)).map { 1000 + $0 })
        for (index, request) in trace.enumerated() {
            #expect((request.id >= 1000) == (index % 50 >= 40))
        }
    }

    @Test func loopRepeatsIdsInOrder() throws {
        let trace = try TraceGenerator.loop(TraceParameters(objects: 7, requests: 30, seed: 1))
        #expect(trace.map(\.id) == (0..<30).map { UInt64($0 % 7) })
        #expect(trace.map(\.time) == (0..<30).map { UInt64($0) })
    }

    @Test func invalidParametersAreRefused() {
        let cases: [(TraceSpec, TraceParameters)] = [
            (.loop, TraceParameters(objects: 0, requests: 1, seed: 1)),
            (.loop, TraceParameters(objects: 1, requests: -1, seed: 1)),
            (.zipf(alpha: 0.5), TraceParameters(objects: 10, requests: 1, seed: 1)),
            (.zipf(alpha: .nan), TraceParameters(objects: 10, requests: 1, seed: 1)),
            (.zipf(alpha: 1), TraceParameters(objects: 10, requests: 1, seed: 1, sizes: .fixed(0))),
            (.loop, TraceParameters(objects: 10, requests: 1, seed: 1, sizes: .uniform(0...10))),
            (.loop, TraceParameters(objects: 10, requests: 1, seed: 1, sizes: .logNormal(median: 10, sigma: -1))),
            (.zipfScan(alpha: 1), TraceParameters(objects: 10, requests: 1, seed: 1, scanEvery: 10, scanLength: 10)),
            (.zipfScan(alpha: 1), TraceParameters(objects: 10, requests: 1, seed: 1, scanEvery: 10, scanLength: 0)),
        ]
        for (spec, parameters) in cases {
            let error = #expect(throws: TraceError.self, "\(spec) \(parameters)") { try spec.generate(parameters) }
            #expect(error?.code == .invalidParameter)
        }
    }

    // MARK: - Sizes

    @Test func anObjectAlwaysHasTheSameSize() throws {
        for sizes: SizeModel in [.fixed(512), .uniform(100...10_000), .logNormal(median: 4096, sigma: 1.5)] {
            var sized = parameters
            sized.sizes = sizes
            var seen: [UInt64: UInt32] = [:]
            for request in try TraceGenerator.zipfScan(alpha: 0.8, sized) {
                #expect(seen[request.id, default: request.size] == request.size)
                #expect(request.size >= 1)
                seen[request.id] = request.size
            }
            #expect(sizes.size(of: 12, seed: 7) == sizes.size(of: 12, seed: 7))
        }
    }

    @Test func uniformSizesCoverTheRange() {
        let sizes = (0..<10_000).map { SizeModel.uniform(1...4).size(of: UInt64($0), seed: 9) }
        #expect(Set(sizes) == [1, 2, 3, 4])
        let spread = (0..<10_000).map { SizeModel.uniform(100...10_000).size(of: UInt64($0), seed: 9) }
        #expect(spread.allSatisfy { (100...10_000).contains($0) })
        #expect(SizeModel.uniform(UInt32.max...UInt32.max).size(of: 1, seed: 1) == UInt32.max)
    }

    @Test func logNormalSizesCenterOnTheMedian() {
        let sizes = (0..<20_000).map { SizeModel.logNormal(median: 4096, sigma: 1).size(of: UInt64($0), seed: 5) }
        let below = sizes.filter { $0 < 4096 }.count
        #expect(abs(below - 10_000) < 500, "\(below) of 20000 below the median")
    }

    // MARK: - Specs and footprints

    @Test func specsParseAndPrintBack() throws {
        let texts = ["zipf:0.8", "zipf-scan:1.0", "loop", "zipf:0.6", "zipf-scan:1.2"]
        for text in texts {
            #expect(try TraceSpec(parsing: text).description == text)
        }
        #expect(try TraceSpec(parsing: "zipf:1") == .zipf(alpha: 1))
    }

    @Test func badSpecListsTheAcceptedForms() {
        for text in ["", "zipf", "zipf:", "zipf:abc", "zipf:1.3", "zipf:nan", "loop:3", "scan:1", "Zipf:1.0"] {
            let error = #expect(throws: TraceError.self, "\(text)") { try TraceSpec(parsing: text) }
            #expect(error?.code == .unknownSpec)
            #expect(error?.message.contains("zipf-scan:<alpha>") == true)
        }
    }

    @Test func footprintCountsEachObjectOnceWithItsFirstSize() throws {
        let requests = [
            TraceRequest(time: 0, id: 1, size: 10), TraceRequest(time: 1, id: 2, size: 5),
            TraceRequest(time: 2, id: 1, size: 99), TraceRequest(time: 3, id: 3, size: 0),
        ]
        #expect(TraceFootprint(requests) == TraceFootprint(objects: 3, bytes: 15))
        #expect(TraceFootprint([]) == TraceFootprint(objects: 0, bytes: 0))
        let loop = try TraceGenerator.loop(TraceParameters(objects: 50, requests: 500, seed: 1, sizes: .fixed(100)))
        #expect(TraceFootprint(loop) == TraceFootprint(objects: 50, bytes: 5000))
    }
}
