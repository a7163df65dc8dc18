import BlobStoreTestKit
import Foundation
import Glibc

/// `blobstore serve` as a child process on a free port, for what only a process of its own
/// shows: its peak memory, and how it stops on SIGTERM.
final class ServeProcess {
    let child: RunningChild
    /// The port it listens on.
    let port: UInt16

    /// Starts `blobstore serve --store <store> --origin <origin> --listen 127.0.0.1:<port>
    /// --access-log <accessLog> <extra>`, its files in `scratch`, and waits until it accepts
    /// connections.
    init(
        store: String, origin: URL, accessLog: String = "/dev/null", extra: [String] = [],
        in scratch: TemporaryDirectory
    ) throws {
        port = LocalPorts.free()
        child = try ChildProcess.start(
            BuiltProducts.executable("blobstore"),
            [
                "serve", "--store", store, "--origin", origin.absoluteString, "--listen", "127.0.0.1:\(port)",
                "--access-log", accessLog,
            ] + extra, in: scratch)
        let deadline = ContinuousClock.now + .seconds(30)
        while (try? RawClient(port: port)) == nil {
            guard child.isRunning, ContinuousClock.now < deadline else { throw ServeProcessError.notListening }
            usleep(20_000)
        }
    }

    /// The peak resident memory of the process so far (`VmHWM`), in bytes.
    func peakMemory() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { throw ServeProcessError.noMemoryFigure }
        return kilobytes * 1024
    }

    /// Sends SIGTERM.
    func terminate() { child.send(SIGTERM) }

    /// Waits up to `timeout` for the process to exit; returns its status, or `nil` (and kills
    /// it) when it did not exit.
    func waitForExit(timeout: Duration) throws -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while child.isRunning, ContinuousClock.now < deadline { usleep(20_000) }
        guard !child.isRunning else {
            child.send(SIGKILL)
            _ = try child.wait()
            return nil
        }
        return try child.wait().status
    }

    deinit {
        if child.isRunning {
            child.send(SIGKILL)
            _ = try? child.wait()
        }
    }
}

enum ServeProcessError: Error {
    case notListening, noMemoryFigure
}
