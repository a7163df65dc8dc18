import Foundation
import Glibc

/// `blobstore serve` as a child process on a free port, for what only a process of its own
/// shows: its peak memory, and how it stops on SIGTERM.
final class ServeProcess {
    let process = Process()
    /// The port it reported listening on.
    let port: UInt16
    private let errors = Pipe()

    /// Starts `blobstore serve --store <store> --origin <origin> --listen 127.0.0.1:0 <extra>` and
    /// waits for the line naming its port.
    init(store: String, origin: URL, extra: [String] = []) throws {
        process.executableURL = Self.executable
        process.arguments =
            ["serve", "--store", store, "--origin", origin.absoluteString, "--listen", "127.0.0.1:0", "-q"]
            + extra
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        // -q silences the access log, not the line that names the port: that one is asked for.
        process.arguments!.removeAll { $0 == "-q" }
        process.arguments! += ["--access-log", "/dev/null"]
        try process.run()
        var text = ""
        while !text.contains("\n") {
            guard let byte = try errors.fileHandleForReading.read(upToCount: 1), !byte.isEmpty else { break }
            text += String(decoding: byte, as: UTF8.self)
        }
        guard let range = text.range(of: "http://127.0.0.1:"),
            let port = UInt16(text[range.upperBound...].prefix { $0.isNumber })
        else {
            process.terminate()
            throw ServeProcessError.noPort(text)
        }
        self.port = port
    }

    /// The peak resident memory of the process so far (`VmHWM`), in bytes.
    func peakMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw ServeProcessError.noMemoryFigure }
        return kilobytes * 1024
    }

    /// Sends SIGTERM.
    func terminate() { kill(process.processIdentifier, SIGTERM) }

    /// Waits up to `timeout` for the process to exit; returns its status, or `nil` (and kills
    /// it) when it did not exit.
    func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// The `blobstore` executable next to the test bundle, or under `.build/debug`.
    static let executable: URL = {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let sibling = testBinary.deletingLastPathComponent().appendingPathComponent("blobstore")
        if FileManager.default.isExecutableFile(atPath: sibling.path) { return sibling }
        let packageRoot = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/blobstore")
    }()
}

enum ServeProcessError: Error {
    case noPort(String), noMemoryFigure
}
