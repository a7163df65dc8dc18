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

    @Test("Each of the nine hop-by-hop names is dropped in any case; other names of their lengths are kept")
    func everyHopByHopNameAndNoOther() {
        let hopByHop = [
            "Connection", "Keep-Alive", "Proxy-Connection", "TE", "Trailer", "Transfer-Encoding", "Upgrade",
            "Proxy-Authorization", "Proxy-Authenticate",
        ]
        // The same lengths, one letter changed at the end: the check by length must still compare.
        let others = hopByHop.map { String($0.dropLast()) + ($0.last == "x" ? "y" : "x") }
        for name in hopByHop {
            for spelled in [name, name.lowercased(), name.uppercased()] {
                let headers = HTTPHeaders([.init(name: spelled, value: "v"), .init(name: "X-Kept", value: "1")])
                #expect(StoredResponse.endToEnd(headers).fields.map(\.name) == ["X-Kept"], "\(spelled)")
            }
        }
        let kept = HTTPHeaders(others.map { .init(name: $0, value: "v") })
        #expect(StoredResponse.endToEnd(kept).fields.map(\.name) == others)
    }

    @Test("A list member is found in any field of the name, in any case, trimmed; a longer or shorter one is not")
    func listContainsMember() {
        let headers = HTTPHeaders([
            .init(name: "Connection", value: "keep-alive ,\tUpgrade"), .init(name: "Other", value: "close"),
            .init(name: "connection", value: ",, CLOSE ,"),
        ])
        #expect(headers.listContains("Connection", "close"))
        #expect(headers.listContains("CONNECTION", "upgrade"))
        #expect(headers.listContains("Connection", "Keep-Alive"))
        #expect(!headers.listContains("Connection", "clos"))
        #expect(!headers.listContains("Connection", "closed"))
        #expect(!headers.listContains("Connection", ""))
        #expect(!headers.listContains("Missing", "close"))
        #expect(!HTTPHeaders([.init(name: "Connection", value: "closer, xclose")]).listContains("Connection", "close"))
    }

    @Test("Names of the same length are the same name only when they differ at most in ASCII case")
    func sameNameFoldsASCIICaseOnly() {
        #expect(HTTPHeaders.sameName("Content-Length", "content-length"))
        #expect(HTTPHeaders.sameName("ETag", "ETag"))
        #expect(!HTTPHeaders.sameName("ETag", "Date"))
        #expect(!HTTPHeaders.sameName("Age", "Ag"))
        #expect(!HTTPHeaders.sameName("A-B", "A_B"))
        // `[` is `{` with the case bit: only letters fold.
        #expect(!HTTPHeaders.sameName("X[", "x{"))
    }

    @Test("has(name, value) is the subscript compared: one field as it is, several joined, none never")
    func hasComparesTheJoinedValue() {
        let headers = HTTPHeaders([
            .init(name: "ETag", value: "\"a\""), .init(name: "X-A", value: "1"), .init(name: "x-a", value: "2"),
        ])
        #expect(headers.has("etag", "\"a\""))
        #expect(!headers.has("ETag", "\"b\""))
        #expect(headers.has("X-A", "1, 2"))
        #expect(!headers.has("X-A", "1"))
        #expect(!headers.has("Missing", ""))
    }
}
