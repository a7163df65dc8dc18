import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Python test server (`Server/http_server.py`), started on a free port of 127.0.0.1 and
/// stopped by `stop()` (it also exits when this process dies: it reads its standard input to the
/// end).
final class TestServer: Sendable {
    let port: Int
    private let process: Process
    private let input: Pipe

    /// Starts the server and waits for the port it prints.
    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Server/http_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            guard let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty else { break }
            line.append(byte)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            process.terminate()
            throw TestServerError.noPort
        }
        self.port = port
        self.process = process
        self.input = input
    }

    /// `http://127.0.0.1:<port><target>`.
    func url(_ target: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(target)")!
    }

    /// How many requests `target` received, and how many were answered 304.
    func counts(_ target: String) async throws -> (requests: Int, notModified: Int) {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/_count")!
        components.queryItems = [URLQueryItem(name: "path", value: target)]
        let session = URLSession(configuration: .ephemeral)
        let (data, _) = try await session.data(from: components.url!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Int]
        return (object?["requests"] ?? -1, object?["notModified"] ?? -1)
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

enum TestServerError: Error {
    case noPort
}

/// Runs `body` with a started server, stopped afterwards.
func withServer<R>(_ body: (TestServer) async throws -> R) async throws -> R {
    let server = try TestServer()
    defer { server.stop() }
    return try await body(server)
}

/// A fresh directory under the system temporary directory (0700, as a store requires), removed
/// by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "blobstore-http-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(
            atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A path inside the directory that does not exist yet.
    func child(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
