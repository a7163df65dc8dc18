import Foundation
import Testing

/// Changes a byte in every 4 KiB of every pack of the store at `store`, in place (a server has
/// the packs mapped and sees the change): every needle of more than a few KiB is damaged.
func damageEveryPack(ofStoreAt store: String) throws {
    for pack in try FileManager.default.contentsOfDirectory(atPath: store + "/packs") {
        let handle = try #require(FileHandle(forUpdatingAtPath: store + "/packs/" + pack))
        let length = try handle.seekToEnd()
        for offset in stride(from: UInt64(100), to: length, by: 4096) {
            try handle.seek(toOffset: offset)
            let byte = try #require(try handle.read(upToCount: 1))
            try handle.seek(toOffset: offset)
            try handle.write(contentsOf: Data([byte[byte.startIndex] ^ 1]))
        }
        try handle.close()
    }
}
