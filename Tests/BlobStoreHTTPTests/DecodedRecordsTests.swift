import Foundation
import Testing

@testable import BlobStoreHTTP

/// The memo of decoded records keys them by all their bytes: stored records of one site share
/// long prefixes, which `Data`'s own hash (its count and first 80 bytes) cannot tell apart.
@Suite struct DecodedRecordsTests {
    /// `count` byte strings of one length that differ only after their first `prefix` bytes.
    private func sharingPrefix(_ count: Int, prefix: Int) -> [Data] {
        (0..<count).map { index in
            Data(repeating: 0x7B, count: prefix) + Data(String(format: "%08d", index).utf8)
        }
    }

    @Test func bytesThatDifferOnlyPastTheirFirst80HashApart() {
        let values = sharingPrefix(1000, prefix: 200)
        // Data's hash: every one of them alike, which is what made one chain of 1,000 records.
        #expect(Set(values.map(\.hashValue)).count == 1)
        // All of their bytes: distinct hashes (a collision among 1,000 64-bit hashes is
        // vanishingly unlikely).
        #expect(Set(values.map { WholeBytes($0).hashValue }).count == 1000)
        #expect(WholeBytes(values[3]) == WholeBytes(Data(values[3])))
        #expect(WholeBytes(values[3]) != WholeBytes(values[4]))
    }

    @Test func eachRecordIsFoundByItsOwnBytes() throws {
        let memo = DecodedRecords(capacity: 4096)
        let padding = String(repeating: "x", count: 120)
        for index in 0..<300 {
            let record = CacheRecord(
                response: StoredResponse(
                    url: "https://example.com/\(padding)/\(index)", status: 200, headers: ["ETag": "\"\(index)\""],
                    vary: nil, requestTime: Date(timeIntervalSince1970: 0), responseTime: Date(timeIntervalSince1970: 0)
                ))
            let metadata = record.encoded()
            let found = try #require(memo.record(in: metadata))
            #expect(found.response?.url.hasSuffix("/\(index)") == true)
            #expect(memo.record(in: metadata)?.response?.headers["ETag"] == "\"\(index)\"")
        }
    }

    @Test("A record encoded through the memo is the one its bytes decode to")
    func encodedRecordsAreRememberedAsTheyDecode() throws {
        let memo = DecodedRecords(capacity: 16)
        let times = [Date(timeIntervalSince1970: 1_800_000_000.123_456_7), Date(timeIntervalSinceReferenceDate: 0.1)]
        for (index, time) in times.enumerated() {
            let record = CacheRecord(
                response: StoredResponse(
                    url: "https://example.com/\(index)", status: 200,
                    headers: ["Cache-Control": "no-cache", "Date": HTTPDate.format(time), "X-Note": "é \"q\""],
                    vary: nil, requestTime: time, responseTime: time + 0.25))
            let metadata = memo.encoded(record)
            #expect(CacheRecord.decoded(metadata) == record)
            #expect(memo.record(in: metadata) == record)
        }
    }
}
