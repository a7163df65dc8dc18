import Foundation
import Testing

@testable import BlobStoreProxy

/// What the proxy passes through, and how it speaks HTTP/1.1 on both sides.
@Suite("Caching proxy: forwarding")
struct ProxyForwardingTests {
    @Test("End-to-end fields pass unchanged both ways, unknown ones too; hop-by-hop ones do not")
    func endToEndFieldsPassHopByHopDoNot() async throws {
        try await withProxy { proxy in
            let answer = try proxy.get(
                "/echo?echo=1&header=X-Origin-Thing:%20kept",
                [
                    "X-Custom-Thing: some value", "Connection: X-Hop", "X-Hop: dropped", "Keep-Alive: timeout=5",
                    "Accept: text/plain",
                ])
            let received = answer.text
            #expect(received.contains("X-Custom-Thing: some value\n"))
            #expect(received.contains("Accept: text/plain\n"))
            #expect(!received.contains("X-Hop"))
            #expect(!received.contains("Keep-Alive"))
            #expect(received.contains("Via: 1.1 blobstore\n"))
            #expect(answer["X-Origin-Thing"] == "kept")
        }
    }

    @Test("Every method is forwarded with its body, by length or chunked")
    func methodsWithBodies() async throws {
        try await withProxy { proxy in
            for method in ["POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
                let client = try proxy.client()
                try client.send(ProxyHarness.request(method, "/m", body: "payload of \(method)"))
                let answer = try client.response()
                #expect(answer.status == 200)
                #expect(answer["X-Method"] == method)
                #expect(answer.text == "payload of \(method)")
            }
            let client = try proxy.client()
            try client.send(
                "POST /chunked HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
            )
            #expect(try client.response().text == "hello world")
        }
    }

    @Test("Requests on one kept-alive connection, pipelined too, are answered in order")
    func keepAliveAndPipelining() async throws {
        try await withProxy { proxy in
            let client = try proxy.client()
            for index in 0..<3 {
                try client.send(ProxyHarness.request("GET", "/k\(index)?body=b\(index)"))
                #expect(try client.response().text == "b\(index)")
            }
            try client.send(ProxyHarness.request("GET", "/p1?body=one") + ProxyHarness.request("GET", "/p2?body=two"))
            #expect(try client.response().text == "one")
            #expect(try client.response().text == "two")
            try client.send(ProxyHarness.request("GET", "/last?body=end", ["Connection: close"]))
            let last = try client.response()
            #expect(last.text == "end")
            #expect(last["Connection"] == "close")
            #expect(try client.readToEnd().isEmpty)
            #expect(client.closed)
        }
    }

    @Test("Pipelined requests that arrive during a miss and fill more than one read are all answered")
    func pipelinedBeyondOneRead() async throws {
        try await withProxy { proxy in
            let target = "/burst?cc=max-age%3D600&body=b"
            #expect(try proxy.get(target).text == "b")
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/slow?delay=0.3&body=first"))
            // While the miss's task has the connection, more requests arrive than one read of the
            // loop takes (and fewer than the socket's receive buffer holds, so that the send
            // completes before the answers are read). The socket reported them once: the loop
            // must go on reading by itself once the connection is back.
            usleep(100_000)
            let request = ProxyHarness.request("GET", target)
            let count = WireConnection.readSize / request.utf8.count + 200
            try client.send(String(repeating: request, count: count))
            #expect(try client.response().text == "first")
            for index in 0..<count {
                let response = try client.response()
                #expect(response.status == 200 && response.text == "b", "answer \(index)")
            }
        }
    }

    @Test("A request that arrives while the one before it waits for the origin is answered after it")
    func requestArrivingDuringAMiss() async throws {
        try await withProxy { proxy in
            let client = try proxy.client()
            try client.send(ProxyHarness.request("GET", "/slow?delay=0.3&body=first"))
            // The connection is with the miss's task when this arrives: the loop learns of it
            // once, and must not forget it when the task gives the connection back.
            usleep(100_000)
            try client.send(ProxyHarness.request("GET", "/after?body=second"))
            #expect(try client.response().text == "first")
            #expect(try client.response().text == "second")
        }
    }

    @Test("A chunked origin response reaches an HTTP/1.1 client chunked, an HTTP/1.0 client delimited by close")
    func reframing() async throws {
        try await withProxy { proxy in
            let target = "/ch?chunk=7&size=100"
            let modern = try proxy.get(target)
            #expect(modern["Transfer-Encoding"] == "chunked")
            #expect(modern.body.count == 100)
            let client = try proxy.client()
            try client.send("GET \(target) HTTP/1.0\r\n\r\n")
            let old = try client.response()
            #expect(old["Transfer-Encoding"] == nil)
            #expect(old.body.count == 100)
            #expect(client.closed)
        }
    }

    @Test("Interim responses (103 Early Hints) are relayed before the final one")
    func interimResponsesAreRelayed() async throws {
        try await withProxy { proxy in
            let answer = try proxy.get("/hints?interim=103&body=final")
            #expect(answer.interim.map(\.status) == [103])
            #expect(answer.interim.first?.fields.contains { $0.name == "Link" } == true)
            #expect(answer.text == "final")
        }
    }

    @Test("Expect: 100-continue gets 100 Continue, then the body goes through")
    func expectContinue() async throws {
        try await withProxy { proxy in
            let client = try proxy.client()
            try client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            try client.send("data")
            let answer = try client.response()
            #expect(answer.interim.map(\.status).contains(100))
            #expect(answer.text == "data")
        }
    }

    @Test("An absolute-form request goes to the host it names in forward-proxy mode")
    func forwardProxy() async throws {
        try await withProxy({ $0.forwardProxy = true }) { proxy in
            let target = "http://127.0.0.1:\(proxy.origin.port)/fw?cc=max-age%3D600&body=forwarded"
            let first = try proxy.get(target)
            #expect(first.text == "forwarded")
            #expect(try proxy.get(target)["Cache-Status"]?.contains("hit") == true)
            #expect(try await proxy.originRequests("/fw?cc=max-age%3D600&body=forwarded") == 1)
            #expect(try proxy.get("https://example.com/").status == 501)
        }
    }

    @Test("An origin that cannot be reached is 502, and the proxy goes on serving")
    func unreachableOrigin() async throws {
        try await withProxy({ $0.origin = URL(string: "http://127.0.0.1:1") }) { proxy in
            let answer = try proxy.get("/x")
            #expect(answer.status == 502)
            #expect(answer.text.hasPrefix("502 Bad Gateway: the origin 127.0.0.1:1 failed"))
            #expect(try proxy.get("/y").status == 502)
        }
    }
}
