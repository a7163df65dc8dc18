import Testing

@testable import BlobStoreHTTP

/// `HeadWriter`, which writes the heads the caching proxy sends, field by field.
@Suite("Head writer")
struct HeadWriterTests {
    @Test(
        "A number field is written as String(number) would be",
        arguments: [0, 7, 42, 1_234_567_890, Int.max, -5, Int.min])
    func numberFields(number: Int) {
        var writer = HeadWriter(status: 200, reason: "OK")
        writer.field("Age", number)
        #expect(String(decoding: writer.ended(), as: UTF8.self) == "HTTP/1.1 200 OK\r\nAge: \(number)\r\n\r\n")
    }

    @Test("A list field joins its stored members and the one added with a comma")
    func joinedFields() {
        var writer = HeadWriter()
        writer.field("Via", joining: "1.0 a, 1.1 b", "1.1 blobstore")
        writer.field("Cache-Status", joining: nil, "blobstore; hit")
        writer.field("X-Name", "value")
        #expect(
            String(decoding: writer.bytes, as: UTF8.self)
                == "Via: 1.0 a, 1.1 b, 1.1 blobstore\r\nCache-Status: blobstore; hit\r\nX-Name: value\r\n")
    }
}
