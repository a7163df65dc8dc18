import BlobStore
import Foundation

/// The bytes and metadata a crash-torture put writes: functions of the key and the version
/// alone, so that workers and the checker compute them again to check a read.
///
/// About a quarter of the versions draw their bytes from 32 shared contents, so keys of
/// different workers share blobs: puts deduplicate and reuse blobs that removes, compactions and
/// garbage collection are dropping at the same moment. One value in 16 is empty; one in 16 is
/// 32 to 128 KiB, cut from one shared base with 64 bytes of its own inserted somewhere, so that
/// workers that chunk them (`TortureWorker.chunks`) share most chunks between values; the rest
/// are up to 8 KiB.
enum TortureContent {
    static func bytes(key: String, version: Int) -> Data {
        var mixer = SplitMix64(seed: fnv1a(key) ^ UInt64(version))
        let draw = mixer.next()
        let content = draw % 4 == 0 ? (draw >> 2) % 32 : draw | 1 << 63
        var random = SplitMix64(seed: content)
        let count: Int
        switch random.next() % 16 {
        case 0: count = 0
        case 1:
            let length = (32 << 10) + Int(random.next() % (96 << 10))
            var bytes = largeBase[..<length]
            bytes.insert(contentsOf: SplitMix64.bytes(64, seed: random.next()), at: Int(random.next() % UInt64(length)))
            return Data(bytes)
        default: count = Int(random.next() % (8 << 10))
        }
        var bytes = [UInt8](repeating: 0, count: count)
        var index = 0
        while index < count {
            var word = random.next()
            for _ in 0..<min(8, count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return Data(bytes)
    }

    /// What the large values are cut from.
    private static let largeBase = SplitMix64.bytes(128 << 10, seed: 0xB10B)

    /// The metadata of a put: its version, so that a read that finds other bytes can tell an old
    /// version (an acknowledged change lost) from bytes that were never any version's.
    static func metadata(version: Int) -> Data {
        Data("v\(version)".utf8)
    }

    static func version(metadata: Data) -> Int? {
        let text = String(decoding: metadata, as: UTF8.self)
        return text.hasPrefix("v") ? Int(text.dropFirst()) : nil
    }

    /// FNV-1a, 64 bits.
    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
    }
}
