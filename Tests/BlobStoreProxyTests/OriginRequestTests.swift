import BlobStoreHTTP
import Foundation
import Testing

@testable import BlobStoreProxy

/// The head the proxy sends an origin for a client's request (`MessageHeaders.originRequest`).
@Suite("Caching proxy: the origin's request head")
struct OriginRequestTests {
    private let target = ForwardTarget(
        host: "origin", port: 8080, authority: "origin:8080", requestTarget: "/p?q", url: nil)

    private func head(_ fields: [(String, String)], validating stored: StoredResponse? = nil, framing: BodyFraming)
        -> String
    {
        let headers = HTTPHeaders(fields.map { HTTPHeaders.Field(name: $0.0, value: $0.1) })
        let bytes = MessageHeaders.originRequest(
            method: "GET", target: target, clientHeaders: headers, validating: stored, framing: framing,
            via: "1.1 proxy")
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test("Host first; Expect, hop-by-hop and Connection-named fields dropped; Via joined; end-to-end ones in order")
    func fieldsInOrder() {
        let sent = head(
            [
                ("X-A", "1"), ("Host", "client"), ("Connection", "X-Hop"), ("X-Hop", "h"), ("Via", "1.0 first"),
                ("Expect", "100-continue"), ("TE", "trailers"), ("X-B", "2"), ("via", "1.1 second"),
            ], framing: .none)
        #expect(
            sent
                == "GET /p?q HTTP/1.1\r\nHost: origin:8080\r\nX-A: 1\r\nX-B: 2\r\n"
                + "Via: 1.0 first, 1.1 second, 1.1 proxy\r\n\r\n")
    }

    @Test("The body's framing replaces the client's Content-Length; without a body the client's is kept")
    func framing() {
        let fields = [("Host", "h"), ("Content-Length", "0"), ("X-A", "1")]
        #expect(head(fields, framing: .none).contains("\r\nContent-Length: 0\r\nX-A: 1\r\nVia: 1.1 proxy\r\n\r\n"))
        #expect(
            head(fields, framing: .length(5)).hasSuffix("\r\nX-A: 1\r\nVia: 1.1 proxy\r\nContent-Length: 5\r\n\r\n"))
        let chunked = head(fields, framing: .chunked)
        #expect(chunked.hasSuffix("\r\nX-A: 1\r\nVia: 1.1 proxy\r\nTransfer-Encoding: chunked\r\n\r\n"))
        #expect(!chunked.contains("Content-Length"))
    }

    @Test("Revalidating, the stored validators replace the client's, even one its Connection names")
    func validatorsReplaceTheClients() {
        let stored = StoredResponse(
            url: "http://origin:8080/p?q", status: 200,
            headers: ["ETag": "\"1\"", "Last-Modified": "Sun, 06 Dec 2026 10:00:00 GMT"], vary: nil,
            requestTime: Date(), responseTime: Date())
        let sent = head(
            [
                ("Host", "h"), ("Connection", "If-None-Match"), ("If-None-Match", "\"old\""),
                ("If-Modified-Since", "Sat, 05 Dec 2026 10:00:00 GMT"), ("X-A", "1"),
            ], validating: stored, framing: .none)
        #expect(
            sent
                == "GET /p?q HTTP/1.1\r\nHost: origin:8080\r\nX-A: 1\r\nIf-None-Match: \"1\"\r\n"
                + "If-Modified-Since: Sun, 06 Dec 2026 10:00:00 GMT\r\nVia: 1.1 proxy\r\n\r\n")
        // A stored response without validators removes the client's.
        let bare = StoredResponse(
            url: "http://origin:8080/p?q", status: 200, headers: [:], vary: nil, requestTime: Date(),
            responseTime: Date())
        let unconditional = head([("Host", "h"), ("If-None-Match", "\"old\"")], validating: bare, framing: .none)
        #expect(unconditional == "GET /p?q HTTP/1.1\r\nHost: origin:8080\r\nVia: 1.1 proxy\r\n\r\n")
    }
}
