import BlobStore
import Foundation

/// `blobstore-torture torture`: rounds of worker processes on one store, SIGKILLed at random
/// moments, each round followed by a check of the store against what they acknowledged
/// (docs/reliability.md, "Crash torture").
///
/// A round starts `workers` `blobstore-torture worker` processes at once, each on its own keys,
/// with a seeded plan: how many operations, which durability, and when it is killed (a quarter
/// of them are left to finish). Their logs go to files, which keep every whole line written
/// before a SIGKILL. Once all have ended, `TortureChecker` opens the store in this process. The
/// run stops after the first round with a finding, keeping the store and the logs.
struct TortureDriver {
    /// The longest a worker runs before it is killed, in milliseconds: kills land anywhere from
    /// the worker's start-up, through opening the store, to a few hundred operations in.
    static let maximumKillDelay = 300
    /// A worker that has not ended this long after its start is hung.
    static let hangSeconds = 120.0

    var options: TortureOptions

    /// Runs the rounds, prints the findings and the summary line; returns the exit status.
    func run() throws -> Int32 {
        let store = URL(fileURLWithPath: options.store).standardizedFileURL.path
        let logs = store + ".logs"
        if let names = try? FileManager.default.contentsOfDirectory(atPath: store), !names.isEmpty {
            throw TortureError("\(store) is not empty: give a new or empty directory for the store")
        }
        try FileManager.default.createDirectory(atPath: logs, withIntermediateDirectories: true)
        let prefixes = (0..<options.workers).map { "w\($0)" }
        let checker = TortureChecker(store: store, prefixes: prefixes)
        let blank = [KeyState](repeating: .absent, count: TortureWorker.keyCount)
        var states = [[KeyState]](repeating: blank, count: options.workers)
        var random = SplitMix64(seed: options.seed)
        var summary = TortureSummary(seed: options.seed)
        let started = Date()
        for round in 1...options.rounds {
            var findings: [Finding] = []
            var workerLogs: [WorkerLog] = []
            let ended = try runWorkers(round: round, store: store, logs: logs, states: states, random: &random)
            for (worker, end) in ended.enumerated() {
                let text = (try? String(contentsOfFile: "\(logs)/\(prefixes[worker]).out", encoding: .utf8)) ?? ""
                let log = WorkerLog(text, states: states[worker], ended: end.reaped)
                summary.count(log)
                findings += log.findings + end.findings(log, name: prefixes[worker])
                workerLogs.append(log)
                if end.killed {
                    summary.kills += 1
                    summary.killsDuring[log.stage, default: 0] += 1
                }
            }
            let outcome = checker.check(workerLogs)
            findings += outcome.findings
            states = outcome.states
            summary.rounds = round
            summary.inFlight += outcome.inFlight
            summary.inFlightApplied += outcome.inFlightApplied
            summary.evicted += outcome.evicted
            summary.count(findings)
            summary.seconds = Date().timeIntervalSince(started)
            for finding in findings { print("round \(round): \(finding)") }
            if !findings.isEmpty {
                print("The store and the last round's logs are kept: \(store), \(logs)")
                break
            }
            if round % 100 == 0 { FileHandle.standardError.write(Data((summary.line + "\n").utf8)) }
        }
        if !summary.failed { try? FileManager.default.removeItem(atPath: logs) }
        print(summary.line)
        return summary.failed ? 1 : 0
    }

    /// Starts the round's workers, kills each at its moment, and waits for all of them to end.
    private func runWorkers(
        round: Int, store: String, logs: String, states: [[KeyState]], random: inout SplitMix64
    ) throws -> [WorkerProcess.End] {
        var workers: [WorkerProcess] = []
        for (worker, keys) in states.enumerated() {
            let plan = WorkerProcess.Plan(
                store: store, prefix: "w\(worker)", firstVersion: round * 1_000_000, random: &random,
                durability: options.durability, eviction: options.eviction)
            workers.append(try WorkerProcess(plan, states: keys, logs: logs))
        }
        let started = Date()
        for worker in workers.sorted(by: { $0.plan.killAfter ?? .max < $1.plan.killAfter ?? .max }) {
            guard let delay = worker.plan.killAfter else { break }
            let wait = Double(delay) / 1000 - Date().timeIntervalSince(started)
            if wait > 0 { Thread.sleep(forTimeInterval: wait) }
            worker.kill()
        }
        return workers.map { $0.waitForEnd(deadline: started.addingTimeInterval(Self.hangSeconds)) }
    }
}
