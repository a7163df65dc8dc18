import Foundation
import Glibc
import Testing

@testable import BlobStore

/// A fresh directory under the system temporary directory, removed by `cleanup()`.
struct TemporaryDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "blobstore-tests-" + UUID().uuidString
        // 0700 whatever the umask: some tests open the directory itself as a store, which
        // refuses a group- or world-writable directory.
        try! FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A path inside the directory that does not exist yet.
    func child(_ name: String) -> String { path + "/" + name }

    func cleanup() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a new temporary directory and removes it afterwards.
func withTemporaryDirectory<R>(_ body: (TemporaryDirectory) throws -> R) rethrows -> R {
    let directory = TemporaryDirectory()
    defer { directory.cleanup() }
    return try body(directory)
}

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

/// Regular files under `path`, recursively.
func regularFiles(under path: String) -> [String] {
    guard let enumerator = FileManager.default.enumerator(atPath: path) else { return [] }
    var files: [String] = []
    while let name = enumerator.nextObject() as? String {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue
        {
            files.append(name)
        }
    }
    return files
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

/// A store configuration that never syncs, for fast tests that do not test durability.
let fast = BlobStore.Configuration(durability: .none)

/// `fast` with nothing packed: every blob a file of its own, for tests of `blobs/sha256/ab/<digest>`.
let looseOnly = {
    var configuration = fast
    configuration.packThreshold = 0
    return configuration
}()

/// Opens the store at `path`, runs `body`, closes it.
@discardableResult
func withStore<R>(
    _ path: String, _ configuration: BlobStore.Configuration = fast, _ body: (BlobStore) throws -> R
) throws -> R {
    let store = try BlobStore(at: path, configuration: configuration)
    defer { try? store.close() }
    return try body(store)
}

extension Data {
    init(_ string: String) { self = Data(string.utf8) }
}

/// Runs `executable` with `arguments` and returns its exit status (-1 if it could not start).
@discardableResult
func run(_ executable: String, _ arguments: [String]) -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    do {
        try process.run()
    } catch {
        return -1
    }
    process.waitUntilExit()
    return process.terminationStatus
}

/// The bytes spelled by `hex` (pairs of hexadecimal digits).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)!
    }
}

/// This process's resident memory now (`VmRSS` in /proc/self/status), in bytes.
func residentBytes() -> Int {
    let status = String(decoding: readBytes("/proc/self/status"), as: UTF8.self)
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return (Int(line.filter(\.isNumber)) ?? 0) * 1024
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

/// SplitMix64, so that a failing sequence can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
