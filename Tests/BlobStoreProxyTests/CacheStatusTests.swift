import Testing

@testable import BlobStoreProxy

/// The proxy's `Cache-Status` member (RFC 9211), written as bytes into a head and as text for
/// the access log.
@Suite("Caching proxy: Cache-Status member")
struct CacheStatusTests {
    @Test("Every parameter in order, the detail a quoted-string")
    func everyParameter() {
        var status = CacheStatus()
        status.forward = "stale"
        status.forwardStatus = 200
        status.ttl = -3
        status.stored = true
        status.collapsed = true
        status.detail = #"say "no" \ twice"#
        #expect(
            status.field(name: "edge")
                == #"edge; fwd=stale; fwd-status=200; ttl=-3; stored; collapsed; detail="say \"no\" \\ twice""#)
    }

    @Test("A hit, and a member without parameters")
    func hitAndBare() {
        var hit = CacheStatus()
        hit.hit = true
        hit.ttl = 42
        #expect(hit.field(name: "blobstore") == "blobstore; hit; ttl=42")
        #expect(CacheStatus().field(name: "blobstore") == "blobstore")
    }

    @Test("The bytes appended are the field's")
    func appendedBytes() {
        var status = CacheStatus()
        status.forward = "uri-miss"
        status.detail = "the response says no-store"
        var bytes = Array("before ".utf8)
        status.append(name: "blobstore", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "before " + status.field(name: "blobstore"))
        #expect(status.field(name: "blobstore") == #"blobstore; fwd=uri-miss; detail="the response says no-store""#)
    }
}

extension CacheStatus {
    /// The member as text (``append(name:to:)``).
    func field(name: String) -> String {
        var bytes: [UInt8] = []
        append(name: name, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}
