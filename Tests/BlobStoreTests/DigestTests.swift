import Foundation
import Testing

@testable import BlobStore

@Suite struct DigestTests {
    // FIPS 180-2 / NIST CSRC examples.
    @Test func sha256KnownVectors() {
        #expect(SHA256Hasher.hash(Data()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            SHA256Hasher.hash(Data("abc")).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Hasher.hash(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")).hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test func sha256IncrementalMatchesOneShotForAMillionAs() {
        let hasher = SHA256Hasher()
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { chunk.withUnsafeBytes { hasher.update($0) } }
        #expect(hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    // RFC 1321, appendix A.5.
    @Test func md5KnownVectors() {
        #expect(MD5Hasher.hash(Data()).hex == "d41d8cd98f00b204e9800998ecf8427e")
        #expect(MD5Hasher.hash(Data("abc")).hex == "900150983cd24fb0d6963f7d28e17f72")
        #expect(MD5Hasher.hash(Data("message digest")).hex == "f96b697d7cb7938d525a2f31aaf161d0")
    }

    @Test func hexRoundTripsAndBytesMatch() throws {
        let digest = SHA256Hasher.hash(Data("abc"))
        let parsed = try #require(SHA256Digest(hex: digest.hex))
        #expect(parsed == digest)
        #expect(SHA256Digest(bytes: digest.bytes) == digest)
        #expect(SHA256Digest(hex: digest.hex.uppercased()) == digest)
        #expect(digest.bytes.count == 32)
    }

    @Test(arguments: [
        "", "abc", String(repeating: "a", count: 63), String(repeating: "a", count: 65),
        String(repeating: "g", count: 64), " " + String(repeating: "a", count: 63),
        "sha256:" + String(repeating: "a", count: 57), "../" + String(repeating: "0", count: 61),
        String(repeating: "é", count: 32),
    ])
    func hexParsingRejectsAnythingButSixtyFourHexCharacters(_ text: String) {
        #expect(SHA256Digest(hex: text) == nil)
    }

    @Test func digestBytesRejectWrongLengths() {
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 31)) == nil)
        #expect(SHA256Digest(bytes: [UInt8](repeating: 0, count: 33)) == nil)
    }
}

@Suite struct CRC32CTests {
    // RFC 3720, appendix B.4, and the common check value.
    @Test func knownVectors() {
        let check = Array("123456789".utf8).withUnsafeBytes { CRC32C.checksum($0) }
        #expect(check == 0xE306_9283)
        let zeros = [UInt8](repeating: 0, count: 32).withUnsafeBytes { CRC32C.checksum($0) }
        #expect(zeros == 0x8A91_36AA)
        let ones = [UInt8](repeating: 0xff, count: 32).withUnsafeBytes { CRC32C.checksum($0) }
        #expect(ones == 0x62A8_AB43)
    }

    @Test func hardwareAndPortablePathsAgree() {
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 7, 8, 9, 63, 64, 65, 1000, 4096] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            bytes.withUnsafeBytes { buffer in
                #expect(CRC32C.checksum(buffer) == CRC32C.portableChecksum(buffer))
                let split = length / 3
                let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[0..<split]))
                #expect(
                    CRC32C.checksum(UnsafeRawBufferPointer(rebasing: buffer[split...]), extending: first)
                        == CRC32C.checksum(buffer))
            }
        }
    }

    @Test func maskRoundTripsAndChangesTheValue() {
        for crc: UInt32 in [0, 1, 0xE306_9283, 0xffff_ffff] {
            #expect(CRC32C.unmask(CRC32C.mask(crc)) == crc)
            #expect(CRC32C.mask(crc) != crc)
        }
    }
}
