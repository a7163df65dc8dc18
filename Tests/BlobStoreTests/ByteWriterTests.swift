import Testing

@testable import BlobStore

/// `ByteWriter`'s room: reserved for what is asked, grown geometrically, so that records framed
/// one after another into one writer (a journal append of many records) copy it a few times, not
/// once per record.
@Suite struct ByteWriterTests {
    @Test func reservingGrowsAtLeastTwofold() {
        var writer = ByteWriter()
        writer.reserve(100)
        #expect(writer.bytes.capacity >= 100)
        var growths = 0
        for _ in 0..<10_000 {
            let before = writer.bytes.capacity
            writer.reserve(13 + 40)
            if writer.bytes.capacity != before {
                growths += 1
                #expect(writer.bytes.capacity >= 2 * before)
            }
            writer.zeros(13 + 40)
        }
        #expect(writer.bytes.count == 530_000)
        // 100 → 530,000 bytes by doubling: 13 growths at most.
        #expect(growths <= 13)
    }

    @Test func aDigestIsWrittenMostSignificantByteFirst() {
        let digest = SHA256Hasher.hash([UInt8]("abc".utf8))
        var writer = ByteWriter()
        writer.digest(digest)
        #expect(writer.bytes == digest.bytes)
        #expect(SHA256Digest(bytes: writer.bytes) == digest)
        #expect(digest.hex.hasPrefix("ba7816bf"))
        #expect(writer.bytes.prefix(4) == [0xBA, 0x78, 0x16, 0xBF])
    }
}
