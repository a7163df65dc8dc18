import Foundation
import Glibc

/// Clocks, memory readings and output for the benchmarks.
enum Measure {
    /// Seconds on the monotonic clock.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds `body` takes on the monotonic clock, and its result.
    static func time<T>(_ body: () throws -> T) rethrows -> (seconds: Double, result: T) {
        let start = now()
        let result = try body()
        return (now() - start, result)
    }

    /// The shortest of three runs of `body`, in seconds.
    static func best(_ body: () -> Void) -> Double {
        (0..<3).map { _ in time(body).seconds }.min()!
    }

    /// This process's resident set now and at its peak (`VmRSS`, `VmHWM`), in bytes.
    static func residentMemory() -> (current: Int, peak: Int) {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
            return (kilobytes.flatMap { Int($0) } ?? 0) * 1024
        }
        return (field("VmRSS"), field("VmHWM"))
    }

    /// Prints one JSON object on a line of its own, keys in the given order.
    /// The disk the files under `path` take, as `du` counts it (`st_blocks` × 512).
    static func allocatedBytes(under path: String) -> Int {
        var total = 0
        var info = stat()
        if lstat(path, &info) == 0 { total += Int(info.st_blocks) * 512 }
        guard info.st_mode & S_IFMT == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path)
        else { return total }
        for name in names { total += allocatedBytes(under: path + "/" + name) }
        return total
    }

    static func emit(_ fields: KeyValuePairs<String, Any>) {
        emit(fields.map { ($0.key, $0.value) })
    }

    /// Prints one JSON object on a line of its own, keys in the given order.
    static func emit(_ fields: [(String, Any)]) {
        let body = fields.map { key, value -> String in
            let rendered: String
            switch value {
            case let text as String: rendered = "\"\(text)\""
            case let number as Double: rendered = String(format: "%.6f", number)
            default: rendered = "\(value)"
            }
            return "\"\(key)\": \(rendered)"
        }
        FileHandle.standardOutput.write(Data(("{" + body.joined(separator: ", ") + "}\n").utf8))
    }
}
