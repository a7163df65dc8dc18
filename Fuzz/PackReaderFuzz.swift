// libFuzzer harness for the pack decoders. Build and run with `Fuzz/run.sh PackReader 60`;
// Fuzz/README.md lists the properties.
//
// The input is a recipe and a pack: a width-prefixed offset and size, a digest choice, then the
// rest of the bytes as the pack file (mapped bytes, as a reader sees them).

import Foundation

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var position = 0
    func byte() -> UInt8 {
        defer { position += 1 }
        return position < input.count ? input[position] : 0
    }
    func number() -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<Int(byte() % 9) { value |= UInt64(byte()) << UInt64(8 * index) }
        return value
    }
    let offset = number()
    let valueSize = number()
    // Either the digest stored in the needle at `offset` (so found needles are common) or one of
    // the input's own bytes.
    let useStored = byte() & 1 == 0
    let pack = Array(input[min(position, input.count)...])
    let digest: SHA256Digest
    if useStored, offset >= 4, offset < UInt64(pack.count), UInt64(pack.count) - offset >= 36 {
        digest = SHA256Digest(bytes: pack[Int(offset) + 4..<Int(offset) + 36])!
    } else {
        digest = SHA256Hasher.hash(pack)
    }

    pack.withUnsafeBytes { buffer in
        let result = PackFormat.needle(in: buffer, at: offset, size: valueSize, digest: digest)
        switch result {
        case .found(let value):
            // (a) A needle is found only whole, after the file header, with a header naming its
            //     size and digest, and the value is exactly the bytes after that header.
            check(offset >= PackFormat.headerSize, pack, "a needle at \(offset) inside the file header was found")
            let end = Int(offset) + 36 + Int(valueSize)
            check(end <= pack.count, pack, "a needle past the end of the pack was found")
            check(UInt64(value.count) == valueSize, pack, "found \(value.count) bytes for a size of \(valueSize)")
            check(Array(value) == Array(pack[(Int(offset) + 36)..<end]), pack, "found other bytes than the needle's")
            let header = PackFormat.needleHeader(size: UInt32(truncatingIfNeeded: valueSize), digest: digest)
            check(Array(pack[Int(offset)..<(Int(offset) + 36)]) == header, pack, "found a needle whose header differs")
        case .missing:
            // (b) Missing means the needle does not fit in the bytes given.
            check(
                offset >= PackFormat.headerSize
                    && (valueSize > UInt64(pack.count) || offset > UInt64(pack.count)
                        || offset + 36 + valueSize > UInt64(pack.count)),
                pack, "a needle that fits was reported missing")
        case .corrupt:
            break
        }
    }
    // (c) A pack header parses only when it is exactly what PackFormat.header writes.
    if let number = PackFormat.parseHeader(Array(pack.prefix(24))) {
        check(
            PackFormat.header(number) == Array(pack.prefix(24)), pack,
            "header of pack \(number) parsed from other bytes")
    }
    // (d) What a writer appends reads back.
    let value = Array(pack.prefix(Int(valueSize % 512)))
    let written =
        PackFormat.header(1) + PackFormat.needleHeader(size: UInt32(value.count), digest: SHA256Hasher.hash(value))
        + value
    written.withUnsafeBytes { buffer in
        let back = PackFormat.needle(
            in: buffer, at: PackFormat.headerSize, size: UInt64(value.count), digest: SHA256Hasher.hash(value))
        check(back == .found(Data(value)), written, "an appended needle does not read back")
    }
    return 0
}
