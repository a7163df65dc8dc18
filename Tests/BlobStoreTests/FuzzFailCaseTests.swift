import Foundation
import Testing

@testable import BlobStore

/// Replays every journal the fuzzers found a bug with (`Fuzz/FailCases/JournalReader/`) through
/// the reader, checking the harness's byte-level properties, so a fixed bug stays fixed.
/// Findings of the JournalRecord harness are record values; each has a named test in
/// JournalFormatTests (`everyExpiryRoundTrips`), and `Fuzz/run.sh` replays their files too.
@Suite struct FuzzFailCaseTests {
    static let failCases: [URL] = {
        let directory = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/FailCases/JournalReader")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }()

    @Test func thereAreFailCasesToReplay() {
        #expect(!Self.failCases.isEmpty)
    }

    @Test(arguments: failCases)
    func failCaseKeepsTheReaderProperties(_ file: URL) throws {
        let bytes = [UInt8](try Data(contentsOf: file))
        var records: [(JournalRecord, Range<Int>)] = []
        let result = bytes.withUnsafeBytes { JournalReader.scan($0) { records.append(($0, $1)) } }
        var end = 0
        for (record, range) in records {
            #expect(range.lowerBound == end)
            #expect(record.framed == Array(bytes[range]), "an accepted record re-encodes to other bytes")
            end = range.upperBound
        }
        #expect(result.validEnd == end)
        #expect(result.recordCount == records.count)
        switch result.ending {
        case .clean: #expect(end == bytes.count)
        case .tornTail(let count), .corrupt(let count, _): #expect(count == bytes.count - end && count > 0)
        }
    }
}
