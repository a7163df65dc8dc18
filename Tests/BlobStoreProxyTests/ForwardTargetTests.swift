import BlobStoreHTTP
import Foundation
import Testing

@testable import BlobStoreProxy

/// Where a request goes (`ForwardTarget.of(_:origin:forwardProxy:)`), built on the parts of the
/// origin's URL taken once (`OriginBase`).
@Suite("Caching proxy: a request's target")
struct ForwardTargetTests {
    private func target(_ requestTarget: String, origin: String?, forwardProxy: Bool = false) throws(Rejection)
        -> ForwardTarget
    {
        let request = RequestHead(method: "GET", target: requestTarget, minorVersion: 1, headers: HTTPHeaders())
        return try ForwardTarget.of(
            request, origin: origin.map { OriginBase(URL(string: $0)!) }, forwardProxy: forwardProxy)
    }

    @Test("An origin-form target goes below the origin's path, with its port or 80")
    func originForm() throws {
        let below = try target("/a/b?c=1", origin: "http://origin.test:8080/base/")
        #expect(below.host == "origin.test" && below.port == 8080 && below.authority == "origin.test:8080")
        #expect(below.origin == "origin.test:8080")
        #expect(below.requestTarget == "/base/a/b?c=1")
        #expect(below.url?.absoluteString == "http://origin.test:8080/base/a/b?c=1")
        #expect(below.storeKey != nil)

        let root = try target("/x", origin: "http://origin.test")
        #expect(root.port == 80 && root.authority == "origin.test" && root.requestTarget == "/x")
        #expect(root.url?.absoluteString == "http://origin.test/x")

        let noSlash = try target("/x", origin: "http://origin.test:81/base")
        #expect(noSlash.requestTarget == "/base/x" && noSlash.authority == "origin.test:81")
    }

    @Test("`*` is sent as it is and nothing is stored under it")
    func asterisk() throws {
        let options = try target("*", origin: "http://origin.test:8080/base/")
        #expect(options.requestTarget == "*" && options.url == nil && options.storeKey == nil)
    }

    @Test("An origin URL without a host answers 502; without an origin an origin-form target is 400")
    func refusals() {
        do {
            _ = try target("/x", origin: "file:///srv")
            Issue.record("an origin without a host was accepted")
        } catch {
            #expect(error.status == 502)
        }
        do {
            _ = try target("/x", origin: nil)
            Issue.record("a target without an origin was accepted")
        } catch {
            #expect(error.status == 400)
        }
    }

    @Test("An absolute-form target goes to its own host in a forward proxy, to the origin otherwise")
    func absoluteForm() throws {
        let forward = try target("http://other.test:9000/p?q", origin: nil, forwardProxy: true)
        #expect(forward.host == "other.test" && forward.port == 9000 && forward.requestTarget == "/p?q")
        #expect(forward.url?.absoluteString == "http://other.test:9000/p?q")
        let reverse = try target("http://other.test:9000/p?q", origin: "http://origin.test/base")
        #expect(reverse.host == "origin.test" && reverse.requestTarget == "/base/p?q")
    }
}
