import Foundation
import Testing

@testable import BlobStoreTraces

/// TraceFormat: either format by value, and trace files.
@Suite struct TraceFormatTests {
    @Test func generatedTraceRoundTripsThroughFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("traces-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let trace = try TraceSpec.zipfScan(alpha: 0.8).generate(
            TraceParameters(objects: 500, requests: 5000, seed: 11, sizes: .logNormal(median: 2000, sigma: 1)))
        for format in TraceFormat.allCases {
            let path = directory.appendingPathComponent("trace.\(format)").path
            try format.write(trace, path: path)
            #expect(try format.read(path: path) == trace, "\(format)")
            #expect(try format.read(format.encode(trace)) == trace, "\(format)")
        }
    }

    @Test func missingFileIsAnIOError() {
        let error = #expect(throws: TraceError.self) { try TraceFormat.csv.read(path: "/nonexistent/trace.csv") }
        #expect(error?.code == .io)
        #expect(error?.message.contains("/nonexistent/trace.csv") == true)
    }

    @Test func damagedFileErrorNamesThePath() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("trace-\(UUID().uuidString).bin").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(repeating: 0, count: 30).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: TraceError.self) { try TraceFormat.oracleGeneral.read(path: path) }
        #expect(error?.code == .truncated)
        #expect(error?.message.hasPrefix(path) == true)
    }
}
