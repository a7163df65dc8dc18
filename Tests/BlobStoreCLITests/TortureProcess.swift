import BlobStoreTestKit
import Foundation
import Glibc

/// The value `blobstore-torture` stores under `<prefix>-<i>` (its `TortureValue.bytes`).
func tortureValue(_ index: Int) -> Data {
    let seed = index % 64
    return Data(String(repeating: "value-\(seed)-", count: seed * 13).utf8)
}

/// The `blobstore-torture` executable of the build products.
let tortureExecutable = BuiltProducts.executable("blobstore-torture")

/// Crash rounds in CI; raise with BLOBSTORE_CRASH_ROUNDS for a longer run by hand.
let crashRounds = Int(ProcessInfo.processInfo.environment["BLOBSTORE_CRASH_ROUNDS"] ?? "") ?? 20

/// A running `blobstore-torture put-loop`, whose `ack` lines are read from its output.
final class PutLoop: Sendable {
    let child: RunningChild

    init(
        store: String, prefix: String, count: Int, durability: String, startAt: Date? = nil,
        in scratch: TemporaryDirectory
    ) throws {
        var arguments = ["put-loop", store, prefix, String(count), durability]
        if let startAt { arguments += [String(Int64(startAt.timeIntervalSince1970 * 1000))] }
        child = try ChildProcess.start(tortureExecutable, arguments, in: scratch)
    }

    /// Waits until at least one put was acknowledged (or `timeout` seconds pass); returns whether
    /// one was.
    func waitForFirstAcknowledgement(timeout: Double = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if child.standardOutputSoFar.contains(UInt8(ascii: "\n")) { return true }
            usleep(1000)
        }
        return false
    }

    /// Indexes whose put returned before the process ended, and how it ended.
    func end() throws -> (acknowledged: [Int], execution: Execution) {
        let execution = try child.wait()
        let acknowledged = execution.stdout.split(separator: "\n").compactMap { line in
            line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
        }
        return (acknowledged, execution)
    }
}
