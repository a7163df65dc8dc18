import BlobStore
import BlobStoreTestKit
import Foundation
import Testing

/// The `blobstore` executable of the build products.
let blobstoreExecutable = BuiltProducts.executable("blobstore")

/// Runs `blobstore arguments…` with `input` on standard input (``ChildProcess/run(_:_:input:environment:in:)``).
///
/// The child's `BLOBSTORE_DIR` points into `scratch` unless `environment` sets it, so a test
/// that forgets `--store` never touches the user's store.
func blobstore(
    _ arguments: [String], input: Data = Data(), environment: [String: String] = [:],
    in scratch: TemporaryDirectory
) throws -> Execution {
    var childEnvironment = ["BLOBSTORE_DIR": scratch.child("default-store")]
    childEnvironment.merge(environment) { _, new in new }
    return try ChildProcess.run(
        blobstoreExecutable, arguments, input: input, environment: childEnvironment, in: scratch)
}

/// Where the bytes of `value` are in the store at `store`: its loose file, or the needle that
/// names it in a pack (docs/format.md, "Packs"); the path and the offset of the value's first
/// byte in it, or `nil` when neither holds it.
func storedCopy(of value: Data, in store: String) -> (path: String, offset: Int)? {
    let digest = SHA256Hasher.hash(value)
    let loose = store + "/blobs/sha256/" + digest.hex.prefix(2) + "/" + digest.hex
    if FileManager.default.fileExists(atPath: loose) { return (loose, 0) }
    let header = withUnsafeBytes(of: UInt32(value.count).littleEndian, Array.init) + digest.bytes
    let packs = ((try? FileManager.default.contentsOfDirectory(atPath: store + "/packs")) ?? []).sorted()
    for name in packs {
        let path = store + "/packs/" + name
        guard let bytes = FileManager.default.contents(atPath: path).map(Array.init),
            let range = bytes.firstRange(of: header)
        else { continue }
        return (path, range.lowerBound + header.count)
    }
    return nil
}

/// Flips the lowest bit of byte `index` of the stored copy of `value` (made writable first).
func damageStoredCopy(of value: Data, in store: String, at index: Int = 0) throws {
    let copy = try #require(storedCopy(of: value, in: store), "a stored copy of the value")
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: copy.path)
    var bytes = try Data(contentsOf: URL(fileURLWithPath: copy.path))
    bytes[copy.offset + index] ^= 0x01
    try bytes.write(to: URL(fileURLWithPath: copy.path))
}

/// The size of the file at `path` in bytes (0 when there is none).
func fileSize(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
}

/// Whether process `pid` is stopped (state `T` in /proc/<pid>/stat).
func isStopped(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let end = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(end, offsetBy: 2)] == "T"
}
