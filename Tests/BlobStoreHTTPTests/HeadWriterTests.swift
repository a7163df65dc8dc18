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

    @Test("Decimals are the digits String(value) has, for every value up to 100,000 and its negative")
    func decimals() {
        for value in (0...100_000).flatMap({ [$0, -$0] }) + [Int.max, Int.min, Int.max - 1, Int.min + 1] {
            var bytes: [UInt8] = []
            HeadWriter.append(decimal: value, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
        #expect(HeadWriter(status: 304, reason: "Not Modified").bytes == Array("HTTP/1.1 304 Not Modified\r\n".utf8))
    }
}
