import BlobStore
import Foundation
import Glibc

/// One `blobstore-torture worker` process of a crash-torture round. Its standard input is a
/// file with the key states the round starts from; its standard output and error go to files
/// under the logs directory.
final class WorkerProcess {
    /// What a worker does in a round, drawn from the driver's seeded generator.
    struct Plan {
        var worker: TortureWorker
        /// When the driver SIGKILLs it, in milliseconds after the round's start; `nil`: never.
        var killAfter: Int?

        init(
            store: String, prefix: String, firstVersion: Int, random: inout SplitMix64, durability: Durability?,
            eviction: Bool
        ) {
            let seed = random.next()
            let durability = durability ?? Durability.allCases[Int(random.next() % 3)]
            let operations: Int
            // A worker to kill gets more operations than it can run before its moment comes. A
            // quarter of those moments fall in the first 10 ms: start-up and opening the store,
            // which may be repairing what a killed worker left.
            switch random.next() % 16 {
            case 0..<4:
                operations = 1 + Int(random.next() % 200)
                killAfter = nil
            case 4..<7:
                operations = 100_000
                killAfter = Int(random.next() % 11)
            default:
                operations = 100_000
                killAfter = Int(random.next() % UInt64(TortureDriver.maximumKillDelay + 1))
            }
            worker = TortureWorker(
                store: store, prefix: prefix, firstVersion: firstVersion, seed: seed, operations: operations,
                durability: durability, eviction: eviction)
        }
    }

    /// How a worker ended.
    struct End {
        var reason: Process.TerminationReason
        var status: Int32
        var hung: Bool
        var standardError: String
        /// The monotonic time once the worker was reaped: it did nothing after this (a killed
        /// worker may finish a system call after SIGKILL is sent, never after it is reaped).
        var reaped: UInt64

        var killed: Bool { !hung && reason == .uncaughtSignal && status == SIGKILL }

        /// What is wrong with this end given the worker's log: it hung, died of another signal,
        /// or exited without finishing its operations and without saying why.
        func findings(_ log: WorkerLog, name: String) -> [Finding] {
            var findings = log.garbled.map { Finding(.error, "\(name) wrote a line that is no event: \"\($0)\"") }
            let said = log.findings.contains { $0.kind == .error }
            if hung {
                findings.append(Finding(.error, "\(name) hung; killed after \(TortureDriver.hangSeconds) s"))
            } else if !killed && !(reason == .exit && status == 0 && log.finished) && !said {
                let how = reason == .exit ? "exited with status \(status)" : "died of signal \(status)"
                findings.append(Finding(.error, "\(name) \(how): \(standardError)"))
            }
            return findings
        }
    }

    /// This executable, run again as a worker.
    private static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

    let plan: Plan
    private let process = Process()
    private let errorPath: String

    init(_ plan: Plan, states: [KeyState], logs: String) throws {
        self.plan = plan
        let input = "\(logs)/\(plan.worker.prefix).in"
        let output = "\(logs)/\(plan.worker.prefix).out"
        errorPath = "\(logs)/\(plan.worker.prefix).err"
        let lines = states.enumerated().compactMap { key, state in
            if case .version(let version) = state { "\(key) \(version)\n" } else { nil }
        }
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: input))
        for path in [output, errorPath] { try Data().write(to: URL(fileURLWithPath: path)) }
        let handles = [
            FileHandle(forReadingAtPath: input), FileHandle(forWritingAtPath: output),
            FileHandle(forWritingAtPath: errorPath),
        ]
        defer { for handle in handles { try? handle?.close() } }
        process.executableURL = Self.executable
        process.arguments = ["worker"] + plan.worker.arguments
        process.standardInput = handles[0]
        process.standardOutput = handles[1]
        process.standardError = handles[2]
        try process.run()
    }

    /// Sends SIGKILL, unless the worker has ended already.
    func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    /// Waits for the worker to end; SIGKILLs it as hung at `deadline`.
    func waitForEnd(deadline: Date) -> End {
        var hung = false
        while process.isRunning {
            if !hung && Date() > deadline {
                hung = true
                kill()
            }
            usleep(1000)
        }
        // Not `waitUntilExit()`: once `isRunning` is false the status is known, and after a
        // worker that crashed (its backtracer running), it was seen to wait for ever.
        let reaped = MonotonicClock.nanoseconds()
        let standardError = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        return End(
            reason: process.terminationReason, status: process.terminationStatus, hung: hung,
            standardError: standardError, reaped: reaped)
    }
}
