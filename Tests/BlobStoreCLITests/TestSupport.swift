import BlobStore
import Foundation
import Testing

/// The result of running the built `blobstore` binary.
struct Execution {
    var status: Int32
    var standardOutput: Data
    var standardError: Data

    var stdout: String { String(decoding: standardOutput, as: UTF8.self) }
    var stderr: String { String(decoding: standardError, as: UTF8.self) }
}

/// A fresh directory under the system's temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("blobstore-cli-tests-" + UUID().uuidString)
        // 0700 whatever the umask: a store directory others may write is refused.
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A path inside the directory (not created).
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `bytes` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ bytes: Data) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try bytes.write(to: file)
        return file.path
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// Runs `body` with a fresh temporary directory and removes it afterwards.
func withTemporaryDirectory<R>(_ body: (TemporaryDirectory) throws -> R) throws -> R {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try body(directory)
}

/// The `blobstore` executable next to the test bundle in the build products directory, or
/// under `.build/debug` of the package.
let blobstoreExecutable: URL = {
    let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let sibling = testBinary.deletingLastPathComponent().appendingPathComponent("blobstore")
    if FileManager.default.isExecutableFile(atPath: sibling.path) { return sibling }
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return packageRoot.appendingPathComponent(".build/debug/blobstore")
}()

/// Runs `blobstore arguments…` with `input` on standard input. Output goes through files, so a
/// large output cannot fill a pipe and deadlock.
///
/// The child's `BLOBSTORE_DIR` points into `scratch` unless `environment` sets it, so a test
/// that forgets `--store` never touches the user's store.
func blobstore(
    _ arguments: [String], input: Data = Data(), environment: [String: String] = [:],
    in scratch: TemporaryDirectory
) throws -> Execution {
    let id = UUID().uuidString
    let inputPath = try scratch.write("io-\(id).in", input)
    let outputPath = try scratch.write("io-\(id).out", Data())
    let errorPath = try scratch.write("io-\(id).err", Data())
    defer {
        for path in [inputPath, outputPath, errorPath] { try? FileManager.default.removeItem(atPath: path) }
    }
    let process = Process()
    process.executableURL = blobstoreExecutable
    process.arguments = arguments
    var childEnvironment = ProcessInfo.processInfo.environment
    childEnvironment["BLOBSTORE_DIR"] = scratch.path("default-store")
    childEnvironment.merge(environment) { _, new in new }
    process.environment = childEnvironment
    let inputHandle = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
    let outputHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    let errorHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardInput = inputHandle
    process.standardOutput = outputHandle
    process.standardError = errorHandle
    try process.run()
    process.waitUntilExit()
    try inputHandle.close()
    try outputHandle.close()
    try errorHandle.close()
    return Execution(
        status: process.terminationStatus,
        standardOutput: try Data(contentsOf: URL(fileURLWithPath: outputPath)),
        standardError: try Data(contentsOf: URL(fileURLWithPath: errorPath)))
}

/// The regular files under `directory`, recursively.
func regularFiles(under directory: String) -> [String] {
    guard let walk = FileManager.default.enumerator(atPath: directory) else { return [] }
    var files: [String] = []
    while let path = walk.nextObject() as? String {
        let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + path)
        if attributes?[.type] as? FileAttributeType == .typeRegular { files.append(path) }
    }
    return files
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
