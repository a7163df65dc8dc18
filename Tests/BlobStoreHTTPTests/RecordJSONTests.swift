import Foundation
import Testing

@testable import BlobStoreHTTP

/// The record JSON written directly is the JSON `JSONEncoder` writes for it, byte for byte, and
/// reads back as the same record.
@Suite("HTTP cache records: JSON")
struct RecordJSONTests {
    private func encoderJSON(_ record: CacheRecord) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(record)
    }

    private func response(_ headers: HTTPHeaders, vary: VaryKey?, time: Date) -> StoredResponse {
        StoredResponse(
            url: "https://example.com/a/b?c=d&e=/f", status: 203, headers: headers, vary: vary, requestTime: time,
            responseTime: time + 0.375)
    }

    @Test("Responses, variants and every ASCII byte in a value are written as JSONEncoder writes them")
    func matchesJSONEncoder() throws {
        let everyByte = String(decoding: (1..<0x80).map { UInt8($0) }, as: UTF8.self)
        let times = [
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: 1),
            Date(timeIntervalSinceReferenceDate: -0.5), Date(timeIntervalSince1970: 1_800_000_000.123_456_7),
            Date(timeIntervalSinceReferenceDate: 1e-5), Date(timeIntervalSinceReferenceDate: 3e20),
        ]
        var records: [CacheRecord] = [CacheRecord(variants: ["accept", "accept-encoding"]), CacheRecord()]
        for time in times {
            let plain = response(["ETag": "\"v1\"", "X-All": everyByte], vary: nil, time: time)
            records.append(CacheRecord(response: plain))
            records.append(
                CacheRecord(
                    response: response(
                        HTTPHeaders([.init(name: "Vary", value: "Accept, Cookie"), .init(name: "X-Uni", value: "é ✓")]),
                        vary: VaryKey(names: ["Accept", "Cookie"], request: ["Accept": "text/html"]), time: time)))
        }
        for (index, record) in records.enumerated() {
            let written = try record.encoded()
            #expect(
                String(decoding: written, as: UTF8.self) == String(decoding: try encoderJSON(record), as: UTF8.self),
                "record \(index)")
            #expect(CacheRecord.decoded(written) == record, "record \(index)")
        }
    }
}
