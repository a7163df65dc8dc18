import Foundation
import Testing

@testable import BlobStoreRemote

/// ``RESPDecoder`` on bytes in memory: nested arrays within their budget, and every hostile
/// length refused before anything is reserved for it.
@Suite("RESP decoder")
struct RESPDecoderTests {
    private let arrays = RESPLimits(maximumBulk: 1 << 10, maximumArrayBytes: 1 << 20)

    private func decode(_ text: String, _ limits: RESPLimits) throws -> RESPValue {
        var buffer = RESPBuffer(Array(text.utf8))
        var decoder = RESPDecoder(limits: limits)
        let value = try decoder.decode(from: &buffer)
        #expect(buffer.isAtEnd, "one value, all of the bytes")
        return value
    }

    private func expectFailure(_ text: String, _ limits: RESPLimits, _ expected: RESPDecodingError) {
        #expect(throws: expected, "\(text.prefix(40).debugDescription)") { _ = try decode(text, limits) }
    }

    @Test func nestedArraysDecodeAndEncodeBack() throws {
        let text = "*2\r\n*3\r\n:0\r\n:5460\r\n*2\r\n$9\r\n127.0.0.1\r\n:7000\r\n*-1\r\n"
        let value = try decode(text, arrays)
        #expect(
            value
                == .array([
                    .array([.integer(0), .integer(5460), .array([.bulk(Data("127.0.0.1".utf8)), .integer(7000)])]),
                    .array(nil),
                ]))
        #expect(value.encoded == Data(text.utf8))
        #expect(try decode("*0\r\n", arrays) == .array([]))
        #expect(try decode("+OK\r\n", arrays).text == "OK")
    }

    @Test func arrayWithoutABudgetIsNotTheProtocol() {
        expectFailure("*1\r\n:1\r\n", RESPLimits(maximumBulk: 10), .malformed("an array reply"))
    }

    @Test(arguments: ["*99999999999999\r\n", "*9223372036854775807\r\n", "*16385\r\n"])
    func arrayLongerThanItsBudgetIsRefusedBeforeItIsRead(text: String) {
        expectFailure(text, arrays, .arrayTooLarge(maximum: 1 << 20))
    }

    @Test func stringsInAnArrayCountAgainstItsBudget() {
        let small = RESPLimits(maximumBulk: 1 << 10, maximumArrayBytes: 4 << 10)
        let bulk = "$1000\r\n" + String(repeating: "x", count: 1000) + "\r\n"
        expectFailure("*4\r\n" + String(repeating: bulk, count: 4), small, .arrayTooLarge(maximum: 4 << 10))
        let status = "+" + String(repeating: "y", count: 1000) + "\r\n"
        expectFailure("*4\r\n" + String(repeating: status, count: 4), small, .arrayTooLarge(maximum: 4 << 10))
        #expect(throws: Never.self) { _ = try decode("*3\r\n" + String(repeating: bulk, count: 3), small) }
    }

    @Test func nestingDeeperThanTheLimitIsRefused() {
        expectFailure(String(repeating: "*1\r\n", count: 100), arrays, .malformed("arrays nested deeper than 8"))
    }

    @Test(arguments: [
        ("*-2\r\n", RESPDecodingError.malformed("a bad array length")), ("*x\r\n", .malformed("a bad array length")),
        ("$-2\r\n", .malformed("a bad bulk length")), ("$3\r\nabcd\r\n", .malformed("a bulk string without CRLF")),
        ("$2000\r\n", .bulkTooLarge(size: 2000, maximum: 1 << 10)), ("*2\r\n:1\r\n", .truncated),
        ("$3\r\nab", .truncated),
        ("", .truncated), ("\r\n", .malformed("an empty reply line")), ("!1\r\n", .malformed("an unknown reply type")),
    ])
    func hostileBytesAreRefused(text: String, expected: RESPDecodingError) {
        expectFailure(text, arrays, expected)
    }

    @Test func lineLongerThanTheLimitIsRefusedWithOrWithoutItsEnd() {
        let limits = RESPLimits(maximumLine: 16, maximumBulk: 10)
        let long = "+" + String(repeating: "z", count: 40)
        expectFailure(long, limits, .malformed("a line longer than 16 bytes"))
        expectFailure(long + "\r\n", limits, .malformed("a line longer than 16 bytes"))
        #expect(throws: Never.self) { _ = try decode("+" + String(repeating: "z", count: 15) + "\r\n", limits) }
    }
}
