import BlobStore
import Foundation
import Testing

@testable import BlobStoreHTTP

/// The memo of decoded records: one per key, used only while the entry's metadata is the one it
/// was decoded from.
@Suite struct DecodedRecordsTests {
    private func record(_ index: Int, etag: String, time: Date = Date(timeIntervalSince1970: 0)) -> CacheRecord {
        CacheRecord(
            response: StoredResponse(
                url: "https://example.com/\(String(repeating: "x", count: 120))/\(index)", status: 200,
                headers: ["ETag": etag], vary: nil, requestTime: time, responseTime: time))
    }

    @Test func eachRecordIsFoundUnderItsOwnKey() throws {
        let memo = DecodedRecords(capacity: 4096)
        for index in 0..<300 {
            let metadata = try record(index, etag: "\"\(index)\"").encoded()
            let key = StoreKey("https://example.com/\(index)")
            let found = try #require(memo.record(in: metadata, under: key))
            #expect(found.response?.url.hasSuffix("/\(index)") == true)
            #expect(memo.record(in: metadata, under: key)?.response?.headers["ETag"] == "\"\(index)\"")
        }
    }

    @Test("Metadata that changed under a key is decoded anew, never answered from the memo")
    func changedMetadataIsDecodedAgain() throws {
        let memo = DecodedRecords(capacity: 16)
        let key = StoreKey("https://example.com/a")
        let first = try record(1, etag: "\"v1\"").encoded()
        let second = try record(1, etag: "\"v2\"").encoded()
        #expect(memo.record(in: first, under: key)?.response?.headers["ETag"] == "\"v1\"")
        #expect(memo.record(in: second, under: key)?.response?.headers["ETag"] == "\"v2\"")
        #expect(memo.record(in: first, under: key)?.response?.headers["ETag"] == "\"v1\"")
        #expect(memo.record(in: Data("not json".utf8), under: key) == nil)
    }

    @Test("A record encoded through the memo is the one its bytes decode to")
    func encodedRecordsAreRememberedAsTheyDecode() throws {
        let memo = DecodedRecords(capacity: 16)
        let times = [Date(timeIntervalSince1970: 1_800_000_000.123_456_7), Date(timeIntervalSinceReferenceDate: 0.1)]
        for (index, time) in times.enumerated() {
            let key = StoreKey("https://example.com/\(index)")
            let record = CacheRecord(
                response: StoredResponse(
                    url: "https://example.com/\(index)", status: 200,
                    headers: ["Cache-Control": "no-cache", "Date": HTTPDate.format(time), "X-Note": "é \"q\""],
                    vary: nil, requestTime: time, responseTime: time + 0.25))
            let metadata = try memo.encoded(record, for: key)
            #expect(CacheRecord.decoded(metadata) == record)
            #expect(memo.record(in: metadata, under: key) == record)
        }
    }
}
