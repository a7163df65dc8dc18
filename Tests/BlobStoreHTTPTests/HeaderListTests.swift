import BlobStoreHTTP
import Testing

/// List fields and the optional whitespace around values (RFC 9110 §5.6.1, §5.6.3).
@Suite("HTTP headers: lists and whitespace")
struct HeaderListTests {
    @Test("A list is the members of every field of the name, trimmed of spaces and tabs, empty ones dropped")
    func listsJoinFieldsAndTrim() {
        let headers = HTTPHeaders([
            .init(name: "Vary", value: " Accept ,\tAccept-Encoding"), .init(name: "Other", value: "x"),
            .init(name: "vary", value: ",, Cookie,"), .init(name: "VARY", value: ""),
        ])
        #expect(headers.list("Vary") == ["Accept", "Accept-Encoding", "Cookie"])
        #expect(headers.list("Missing").isEmpty)
    }

    @Test("Only spaces and tabs are trimmed: other whitespace is part of a value")
    func onlyOptionalWhitespaceIsTrimmed() {
        #expect(" \t a b \t ".trimmingOptionalWhitespace() == "a b")
        #expect("\u{A0}x\u{A0}".trimmingOptionalWhitespace() == "\u{A0}x\u{A0}")
        #expect("é ".trimmingOptionalWhitespace() == "é")
        #expect(" \t ".trimmingOptionalWhitespace().isEmpty)
        let headers: HTTPHeaders = ["Cache-Control": "  max-age=5\t"]
        #expect(headers["Cache-Control"] == "max-age=5")
    }

    @Test("Hop-by-hop fields and those Connection names are not end to end, in any case")
    func endToEndDropsHopByHop() {
        let headers = HTTPHeaders([
            .init(name: "connection", value: "X-Hop, close"), .init(name: "x-hop", value: "1"),
            .init(name: "Keep-Alive", value: "timeout=5"), .init(name: "TRANSFER-ENCODING", value: "chunked"),
            .init(name: "Content-Type", value: "text/plain"), .init(name: "Proxy-Authenticate", value: "Basic"),
        ])
        #expect(StoredResponse.endToEnd(headers).fields.map(\.name) == ["Content-Type"])
    }

    @Test("Connection: keep-alive names only Keep-Alive; with another member, that one goes too")
    func keepAliveAndMore() {
        func kept(_ connection: [String]) -> [String] {
            let headers = HTTPHeaders(
                connection.map { .init(name: "Connection", value: $0) } + [
                    .init(name: "Keep-Alive", value: "timeout=5"), .init(name: "X-A", value: "1"),
                    .init(name: "ETag", value: "\"e\""),
                ])
            return StoredResponse.endToEnd(headers).fields.map(\.name)
        }
        #expect(kept([]) == ["X-A", "ETag"])
        #expect(kept(["keep-alive"]) == ["X-A", "ETag"])
        #expect(kept(["Keep-Alive", "KEEP-ALIVE"]) == ["X-A", "ETag"])
        #expect(kept(["keep-alive, X-A"]) == ["ETag"])
        #expect(kept(["keep-alive", "x-a"]) == ["ETag"])
        #expect(kept([" keep-alive , etag"]) == ["X-A"])
    }
}
