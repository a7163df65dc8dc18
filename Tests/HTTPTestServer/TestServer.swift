import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Python test server (`http_server.py`, next to this file, documents its options), started
/// on a free port of 127.0.0.1 and stopped by `stop()` (it also exits when this process dies: it
/// reads its standard input to the end). Shared by the HTTP cache and the CLI tests.
public final class TestServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    private let process: Process
    private let input: Pipe
    /// The session that asks the server for its counts.
    private let session = URLSession(configuration: .ephemeral)

    /// Starts the server and waits for the port it prints.
    ///
    /// - Throws: ``TestServerError/noPort`` when it prints none (is `python3` installed?).
    public init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("http_server.py")
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
    public func url(_ target: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(target)")!
    }

    /// How many requests `target` received, and how many were answered 304.
    public func counts(_ target: String) async throws -> (requests: Int, notModified: Int) {
        var components = URLComponents(string: "http://127.0.0.1:\(port)/_count")!
        components.queryItems = [URLQueryItem(name: "path", value: target)]
        let (data, _) = try await session.data(from: components.url!)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Int]
        return (object?["requests"] ?? -1, object?["notModified"] ?? -1)
    }

    /// Lets every 304 held by `gate=1` (now and later) be sent.
    public func release() async throws {
        _ = try await session.data(from: url("/_release"))
    }

    /// Stops the server, waits for it to exit, and releases the counting session.
    public func stop() {
        session.finishTasksAndInvalidate()
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// Why the test server did not start.
public enum TestServerError: Error {
    /// It printed no port.
    case noPort
}

/// Runs `body` with a started server, stopped afterwards.
public func withServer<R>(_ body: (TestServer) async throws -> R) async throws -> R {
    let server = try TestServer()
    defer { server.stop() }
    return try await body(server)
}

extension TestServer {
    /// The bytes the server sends for `size=<n>` and `stream=<n>`: a position-dependent 64 KiB
    /// pattern, repeated (`pattern` in http_server.py).
    public static func pattern(_ size: Int) -> Data {
        let block = (0..<65536).map { UInt8(truncatingIfNeeded: ($0 * 7 + $0 / 251) % 256) }
        var data = Data(capacity: size)
        while data.count < size { data.append(contentsOf: block.prefix(size - data.count)) }
        return data
    }
}
