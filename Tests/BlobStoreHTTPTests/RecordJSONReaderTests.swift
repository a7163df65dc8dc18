import Foundation
import Testing

@testable import BlobStoreHTTP

/// `RecordJSONReader`, the fast reader of a record's JSON: it reads what `RecordJSON` writes as
/// the record written, and from any bytes it reads either nothing (`JSONDecoder` then decides) or
/// what `JSONDecoder` reads, byte for byte.
@Suite("HTTP cache records: the fast JSON reader")
struct RecordJSONReaderTests {
    private static let names = ["Date", "ETag", "x-a", "Content-Type", "Set-Cookie", "É-name", "a/b"]
    private static let values = [
        "", "v", "Tue, 14 Nov 2023 22:13:20 GMT", "\"etag\"", "back\\slash", "a/b/c", "tab\tin", "line\nfeed",
        "\u{01}\u{1F}\u{7F}", "é", "e\u{301}", "日本", "😀 emoji", "quote\"and\\both",
        "max-age=60, no-cache=\"Set-Cookie\"",
    ]
    private static let times: [Double] = [
        0, 1, -0.5, 786_542_400, 786_542_400.123_456_7, 1e-5, 3e20, -1e15, 1e-300,
        1.7976931348623157e308,
        0.1, 1e16,
        123_456_789.000_001,
    ]

    /// A record made from `random`'s choices.
    private static func record(_ random: inout some RandomNumberGenerator) -> CacheRecord {
        if Int.random(in: 0..<10, using: &random) == 0 {
            return CacheRecord(
                variants: (0..<Int.random(in: 0...3, using: &random)).map { _ in names.randomElement(using: &random)! })
        }
        let fields = (0..<Int.random(in: 0...8, using: &random)).map { _ in
            HTTPHeaders.Field(name: names.randomElement(using: &random)!, value: values.randomElement(using: &random)!)
        }
        var vary: VaryKey?
        if Bool.random(using: &random) {
            vary = VaryKey(
                elements: (0..<Int.random(in: 0...3, using: &random)).map { _ in
                    VaryKey.Element(
                        name: names.randomElement(using: &random)!,
                        value: Bool.random(using: &random) ? values.randomElement(using: &random)! : nil)
                })
        }
        let time =
            times.randomElement(using: &random)!
            * (Bool.random(using: &random) ? 1 : Double.random(in: 0.5...1, using: &random))
        let url = "http://h/" + values.randomElement(using: &random)! + "?q=" + values.randomElement(using: &random)!
        let response = StoredResponse(
            exactly: url, status: [200, 203, 304, 404, 599, 0, -7, 100_000].randomElement(using: &random)!,
            headers: HTTPHeaders(fields), vary: vary, requestTime: Date(timeIntervalSinceReferenceDate: time),
            responseTime: Date(timeIntervalSinceReferenceDate: time + 0.25))
        return CacheRecord(response: response)
    }

    /// What `JSONDecoder` reads from `json`.
    private static func slow(_ json: Data) -> CacheRecord? {
        try? JSONDecoder().decode(CacheRecord.self, from: json)
    }

    @Test("What RecordJSON writes is read back as the record written, as JSONDecoder reads it")
    func readsWhatIsWritten() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3_000 {
            let record = Self.record(&random)
            let json = try RecordJSON.encode(record)
            let read = try #require(RecordJSONReader.record(in: json), "\(String(decoding: json, as: UTF8.self))")
            #expect(try RecordJSON.encode(read) == json)
            let slow = try #require(Self.slow(json))
            #expect(try RecordJSON.encode(slow) == json)
        }
    }

    @Test("From damaged bytes it reads nothing, or what JSONDecoder reads")
    func damagedBytesReadAsJSONDecoderReadsThem() throws {
        var random = SystemRandomNumberGenerator()
        var (accepted, rejected) = (0, 0)
        for _ in 0..<20_000 {
            var bytes = [UInt8](try RecordJSON.encode(Self.record(&random)))
            for _ in 0..<Int.random(in: 1...3, using: &random) where !bytes.isEmpty {
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<5, using: &random) {
                case 0: bytes[at] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(Array(" ,:{}[]\"\\0123456789eE.-+u/é".utf8).randomElement(using: &random)!, at: at)
                case 3: bytes[at] = UInt8.random(in: 0...255, using: &random)
                default:
                    let end = min(bytes.count, at + Int.random(in: 1...12, using: &random))
                    bytes.insert(contentsOf: bytes[at..<end], at: at)
                }
            }
            let json = Data(bytes)
            guard let fast = RecordJSONReader.record(in: json) else {
                rejected += 1
                continue
            }
            accepted += 1
            let slow = try #require(Self.slow(json), "\(String(decoding: json, as: UTF8.self))")
            #expect(try RecordJSON.encode(fast) == RecordJSON.encode(slow), "\(String(decoding: json, as: UTF8.self))")
        }
        // Both ways were taken many times.
        #expect(accepted > 1_000 && rejected > 1_000, "\(accepted) read, \(rejected) left to JSONDecoder")
    }

    @Test("Other forms are left to JSONDecoder, which reads them")
    func otherFormsAreLeftToJSONDecoder() throws {
        let forms = [
            #"{ "version": 1 }"#,  // whitespace
            #"{"version":1,"variants":["a"]}"#,  // another order
            #"{"variants":["\ud83d\ude00"],"version":1}"#,  // a surrogate pair
            #"{"variants":["a"],"version":1.0}"#,  // a whole number with a fraction
            #"{"extra":true,"version":1}"#,  // a key it does not know
            #"{"response":{"headers":{"fields":[]},"requestTime":0.0,"responseTime":0,"status":200,"url":""},"version":1}"#,
            #"{"response":{"headers":{"fields":[]},"requestTime":0e0,"responseTime":0,"status":200,"url":""},"version":1}"#,
        ]
        for form in forms {
            let json = Data(form.utf8)
            #expect(RecordJSONReader.record(in: json) == nil, "\(form)")
            #expect(CacheRecord.decoded(json) != nil, "\(form)")
        }
        #expect(CacheRecord.decoded(Data(#"{"variants":["\ud83d\ude00"],"version":1}"#.utf8))?.variants == ["😀"])
        // Bytes that are not UTF-8 (a lone 0xFF, an overlong "/") are no string, raw or escaped.
        for bad: [UInt8] in [[0xFF], [0xC0, 0xAF], [0x5C, 0x2F, 0xFF]] {
            let json = Data(#"{"variants":[""#.utf8 + bad + #""],"version":1}"#.utf8)
            #expect(RecordJSONReader.record(in: json) == nil)
            #expect(CacheRecord.decoded(json) == nil)
        }
        // Zeros with an exponent, some of which JSONDecoder refuses: left to it.
        for zero in ["0e1", "0E7", "0.00e4", "0.00e-1", "-0e1"] {
            let json = Data(
                #"{"response":{"headers":{"fields":[]},"requestTime":\#(zero),"responseTime":0,"status":200,"url":""},"version":1}"#
                    .utf8)
            #expect(RecordJSONReader.record(in: json) == nil, "\(zero)")
            #expect(
                CacheRecord.decoded(json)?.response?.requestTime
                    == (try? JSONDecoder().decode(CacheRecord.self, from: json))?.response?.requestTime)
        }
        // An integer of more than 18 digits is refused, not summed past Int's range.
        let long = Data(#"{"version":12345678901234567890123}"#.utf8)
        #expect(RecordJSONReader.record(in: long) == nil)
        #expect(CacheRecord.decoded(long) == nil)
        // A time too small to be a normal number, as RecordJSON writes it.
        let tiny = Date(timeIntervalSinceReferenceDate: .leastNonzeroMagnitude)
        let json = try RecordJSON.encode(
            CacheRecord(
                response: StoredResponse(
                    exactly: "http://h/", status: 200, headers: HTTPHeaders(), vary: nil, requestTime: tiny,
                    responseTime: tiny)))
        #expect(RecordJSONReader.record(in: json) == nil)
        #expect(CacheRecord.decoded(json)?.response?.requestTime == tiny)
    }
}
