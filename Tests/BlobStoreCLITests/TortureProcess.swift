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

/// A running `blobstore-torture put-loop` whose `ack` lines are collected as they arrive.
final class PutLoop: @unchecked Sendable {
    let process = Process()
    private let pipe = Pipe()
    private let lock = NSLock()
    private var buffer = Data()

    init(store: String, prefix: String, count: Int, durability: String, startAt: Date? = nil) throws {
        process.executableURL = URL(fileURLWithPath: tortureExecutable)
        process.arguments = ["put-loop", store, prefix, String(count), durability]
        if let startAt { process.arguments! += [String(Int64(startAt.timeIntervalSince1970 * 1000))] }
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self else { return }
            self.lock.lock()
            self.buffer.append(data)
            self.lock.unlock()
        }
        try process.run()
    }

    /// Waits until at least one put was acknowledged (or `timeout` seconds pass); returns whether
    /// one was.
    func waitForFirstAcknowledgement(timeout: Double = 30) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            lock.lock()
            let started = buffer.contains(UInt8(ascii: "\n"))
            lock.unlock()
            if started { return true }
            usleep(1000)
        }
        return false
    }

    /// Indexes whose put returned before the process died.
    func acknowledged() -> [Int] {
        pipe.fileHandleForReading.readabilityHandler = nil
        let rest = pipe.fileHandleForReading.readDataToEndOfFile()
        lock.lock()
        defer { lock.unlock() }
        buffer.append(rest)
        return String(decoding: buffer, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.hasPrefix("ack ") ? Int(line.dropFirst(4)) : nil
        }
    }
}
