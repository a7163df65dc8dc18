import BlobStoreCache
import BlobStoreHTTP
import BlobStoreTestKit
import Foundation
import Testing

@testable import BlobStoreProxy

/// The head of a hit served whole, written in one pass, against the same head made by editing
/// a copy of the stored fields (the path every other answer from the cache takes).
@Suite("Caching proxy: served heads")
struct ServedHeadTests {
    @Test("A stored response served whole has the head that editing its fields gives")
    func wholeHeadMatchesEditedFields() throws {
        let directory = TemporaryDirectory()
        defer { directory.cleanup() }
        let cache = HTTPCache(store: try directory.store("store"))
        let context = ProxyContext(
            configuration: ProxyConfiguration(origin: URL(string: "http://127.0.0.1:9")!), cache: cache,
            log: AccessLog(nil))
        let request = try HeadParser.request(Array("GET /a HTTP/1.1\r\nHost: x".utf8)[...], maxFields: 100)
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let cases: [HTTPHeaders] = [
            HTTPHeaders([
                .init(name: "Date", value: HTTPDate.format(received)),
                .init(name: "Cache-Control", value: "max-age=60"),
                .init(name: "Content-Type", value: "text/plain"), .init(name: "ETag", value: "\"v1\""),
                .init(name: "Content-Length", value: "5"),
            ]),
            HTTPHeaders([
                .init(name: "via", value: "1.0 a"), .init(name: "Age", value: "30"),
                .init(name: "Cache-Control", value: "max-age=60, no-cache=\"X-Secret\""),
                .init(name: "X-Secret", value: "s"), .init(name: "Via", value: "1.1 b"),
                .init(name: "cache-status", value: "upstream; hit"), .init(name: "x-secret", value: "t"),
                .init(name: "X-Kept", value: "k"), .init(name: "content-length", value: "7"),
            ]),
            HTTPHeaders([
                .init(name: "Cache-Control", value: "private=\"Via\", max-age=5"), .init(name: "Via", value: "1.1 c"),
                .init(name: "Last-Modified", value: HTTPDate.format(received - 3600)),
            ]),
        ]
        for (index, headers) in cases.enumerated() {
            let stored = StoredResponse(
                url: "http://x/a", status: 200, headers: headers, vary: nil, requestTime: received,
                responseTime: received)
            for keepAlive in [true, false] {
                let exchange = ProxyExchange(
                    context: context, client: WireConnection(fd: -1, peer: "test"), request: request)
                exchange.keepAlive = keepAlive
                exchange.cacheStatus.hit = true
                let now = received + 12.5
                var edited = stored.servedHeaders(at: now)
                edited.set("Transfer-Encoding", nil)
                edited.set("Content-Length", "5")
                let expected = exchange.finalHead(status: 200, reason: "", headers: edited)
                let written = exchange.wholeHead(stored, at: now, contentLength: 5)
                #expect(
                    String(decoding: written, as: UTF8.self) == String(decoding: expected, as: UTF8.self),
                    "case \(index), keep-alive \(keepAlive)")
            }
        }
    }
}
