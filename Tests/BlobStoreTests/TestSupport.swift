import Foundation
import Glibc
import Testing

@testable import BlobStore

// MARK: - Byte-level file helpers

func readBytes(_ path: String) -> [UInt8] {
    [UInt8](FileManager.default.contents(atPath: path)!)
}

func writeBytes(_ path: String, _ bytes: [UInt8]) {
    let url = URL(fileURLWithPath: path)
    try! Data(bytes).write(to: url)
}

/// Cuts the file at `path` to `length` bytes.
func truncate(_ path: String, to length: Int) {
    precondition(Glibc.truncate(path, off_t(length)) == 0)
}

/// Flips bit `bit` (0-7) of byte `offset` of the file at `path`.
func flipBit(_ path: String, at offset: Int, bit: Int) {
    var bytes = readBytes(path)
    bytes[offset] ^= UInt8(1 << bit)
    writeBytes(path, bytes)
}

/// Every path under `path` (relative, with a trailing `/` for directories), found with `lstat`:
/// symbolic links are listed, never followed.
func allPaths(under path: String) -> Set<String> {
    var found: Set<String> = []
    var pending = [""]
    while let relative = pending.popLast() {
        let directory = relative.isEmpty ? path : path + "/" + relative
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            let child = relative.isEmpty ? name : relative + "/" + name
            var info = stat()
            guard lstat(path + "/" + child, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR {
                found.insert(child + "/")
                pending.append(child)
            } else {
                found.insert(child)
            }
        }
    }
    return found
}

/// Where the store at `store` keeps the blob `digest`: `blobs/sha256/ab/<hex>`.
func blobFile(_ store: String, _ digest: SHA256Digest) -> String {
    store + "/blobs/sha256/" + digest.hex.prefix(2) + "/" + digest.hex
}

func fileMode(_ path: String) -> mode_t {
    var info = stat()
    precondition(lstat(path, &info) == 0)
    return info.st_mode & 0o7777
}

extension Data {
    init(_ string: String) { self = Data(string.utf8) }
}

/// The bytes spelled by `hex` (pairs of hexadecimal digits).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// The code of the `BlobStoreError` that `body` throws, or `nil` if it throws none; records an
/// issue for any other error, and checks that the message says something.
func errorCode(_ body: () throws -> Void) -> BlobStoreError.Code? {
    do {
        try body()
        return nil
    } catch let error as BlobStoreError {
        #expect(error.message.count > 20, "messages say what to do: \(error.message)")
        return error.code
    } catch {
        Issue.record("unexpected error type \(error)")
        return nil
    }
}
