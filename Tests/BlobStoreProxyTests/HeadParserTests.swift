import BlobStoreHTTP
import Testing

@testable import BlobStoreProxy

/// The head parser on its own: what it accepts from origins, and what it writes back.
@Suite("Caching proxy: head parsing")
struct HeadParserTests {
    @Test("Token bytes are RFC 9110's tchar, and only those")
    func tokenBytes() {
        let tchar = Set(Array("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8))
        for byte in 0...255 {
            #expect(HeadParser.isTokenByte(UInt8(byte)) == tchar.contains(UInt8(byte)), "byte \(byte)")
        }
    }

    @Test("An origin's folded field is joined with one space; an empty fold adds nothing (a fuzz finding)")
    func foldsFromOrigins() throws {
        let head = Array("HTTP/1.0 304 Not Modified\r\nETag: \"v1\"\r\n \r\nX-A: a\r\n  b \r\n".utf8)
        let response = try HeadParser.response(head[...])
        #expect(response.headers["ETag"] == "\"v1\"")
        #expect(response.headers["X-A"] == "a b")
        let again = try HeadParser.response(response.serialized.dropLast(2))
        #expect(again.headers == response.headers)
    }

    @Test("A status line is HTTP/1.x, a space, three digits from 100, and a reason after a space or none")
    func statusLines() throws {
        let accepted: [(String, Int, Int, String)] = [
            ("HTTP/1.1 200 OK", 1, 200, "OK"), ("HTTP/1.0 404", 0, 404, ""), ("HTTP/1.1 204 ", 1, 204, ""),
            ("HTTP/1.1 200  Two spaces", 1, 200, " Two spaces"), ("HTTP/1.9 100 Continue", 9, 100, "Continue"),
        ]
        for (line, minor, status, reason) in accepted {
            let response = try HeadParser.response(Array(line.utf8)[...])
            #expect(
                response.minorVersion == minor && response.status == status && response.reason == reason, "\(line)")
        }
        let refused = [
            "HTTP/1.1 20", "HTTP/1.1 2000 OK", "HTTP/1.1 200OK", "HTTP/2.0 200 OK", "HTTP/1.x 200 OK",
            "HTTP/1.1 099 Low",
            "HTTP/1.1 2a0 OK", "HTTPS1.1 200 OK", "http/1.1 200 OK", "HTTP/1.1  200 OK", "", "HTTP/1.1",
        ]
        for line in refused {
            #expect(throws: Rejection.self, "\(line)") { try HeadParser.response(Array(line.utf8)[...]) }
        }
    }

    @Test("A request written back parses to the same request")
    func requestRoundTrip() throws {
        let head = Array("GET /a?b HTTP/1.1\r\nHost: h\r\nX-Empty:\r\nX-Spaces:   v  \r\n".utf8)
        let request = try HeadParser.request(head[...], maxFields: 10)
        #expect(request.headers["X-Empty"] == "")
        #expect(request.headers["X-Spaces"] == "v")
        #expect(try HeadParser.framing(of: request) == .none)
        let length = try HeadParser.request(
            Array("PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5".utf8)[...], maxFields: 10)
        #expect(try HeadParser.framing(of: length) == .length(5))
    }

    @Test("A response's Content-Length is one decimal number, in one field or repeated equal; anything else is 502")
    func contentLengths() throws {
        func framing(_ fields: [String]) throws -> BodyFraming {
            let head = "HTTP/1.1 200 OK\r\n" + fields.map { "Content-Length: \($0)\r\n" }.joined()
            return try HeadParser.framing(of: try HeadParser.response(Array(head.utf8)[...]), method: "GET")
        }
        #expect(try framing([]) == .untilClose)
        #expect(try framing(["0"]) == .length(0))
        #expect(try framing(["4096"]) == .length(4096))
        #expect(try framing(["  17 "]) == .length(17))
        #expect(try framing(["5, 5"]) == .length(5))
        #expect(try framing(["5", "5"]) == .length(5))
        #expect(try framing(["999999999999999999"]) == .length(999_999_999_999_999_999))
        for refused in [
            [""], ["5, 6"], ["5", "6"], ["abc"], ["+5"], ["-1"], ["1e3"], ["5 5"], ["1234567890123456789"],
        ] {
            #expect(throws: Rejection.self, "\(refused)") { try framing(refused) }
        }
    }

    @Test("Byte ranges stay inside the body")
    func byteRanges() {
        #expect(ByteRange.of("bytes=0-1", length: 10) == .part(0..<2))
        #expect(ByteRange.of("bytes=5-100", length: 10) == .part(5..<10))
        #expect(ByteRange.of("bytes=-100", length: 10) == .part(0..<10))
        #expect(ByteRange.of("bytes=-0", length: 10) == .unsatisfiable)
        #expect(ByteRange.of("bytes=10-", length: 10) == .unsatisfiable)
        #expect(ByteRange.of("bytes=3-1", length: 10) == .whole)
        #expect(ByteRange.of("items=0-1", length: 10) == .whole)
        #expect(ByteRange.of("bytes=0-1,4-5", length: 10) == .whole)
        #expect(ByteRange.of("bytes=0-", length: 0) == .unsatisfiable)
    }
}
