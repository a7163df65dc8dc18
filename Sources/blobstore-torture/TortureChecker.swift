import BlobStore
import Foundation

/// Opens the store after a round, with no worker left running, and checks it against the
/// workers' logs:
///
/// - the store opens, neither opening nor `verify()` finds damage (a torn tail is fine), and
///   `quarantine/` is empty: no process found damage during the round either;
/// - every key holds what its last acknowledged change left, or what the change in flight when
///   its worker died left, or nothing where an eviction explains it; and never bytes that are
///   not the value of the version its metadata names;
/// - every read or remove that found nothing where a version was acknowledged is explained by an
///   eviction: a collection with a limit, in any worker, that began before the read returned and
///   ended (or was killed) after the version's put began (`WorkerLog.Eviction`). Nothing else
///   makes an acknowledged value go away.
struct TortureChecker {
    var store: String
    /// The key prefix of each worker, in the order of the logs.
    var prefixes: [String]

    struct Outcome {
        var findings: [Finding] = []
        /// Each worker's key states as the store holds them: what the next round starts from.
        var states: [[KeyState]]
        var inFlight = 0
        var inFlightApplied = 0
        /// Absences that an eviction explains: during the round, and at the check after it.
        var evicted = 0
    }

    func check(_ logs: [WorkerLog]) -> Outcome {
        var outcome = Outcome(states: logs.map(\.states))
        let evictions = logs.flatMap(\.evictions)
        for (worker, log) in logs.enumerated() {
            for absence in log.absences {
                if evictions.contains(where: { $0.explains(putBegan: absence.putBegan, seen: absence.seen) }) {
                    outcome.evicted += 1
                } else {
                    outcome.findings.append(
                        Finding(
                            .lost,
                            "\(prefixes[worker])-\(absence.key): expected \(absence.expected), a read or remove found "
                                + "nothing, and no eviction ran between its put and that moment"))
                }
            }
        }
        let store: BlobStore
        do {
            store = try BlobStore(at: self.store)
        } catch {
            outcome.findings.append(Finding(.recoveryFailure, "open: \(error)"))
            return outcome
        }
        do {
            if !store.recoveryReport.isClean {
                outcome.findings.append(Finding(.recoveryFailure, "open: \(store.recoveryReport)"))
            }
            let report = try store.verify()
            if !report.isClean {
                outcome.findings.append(
                    Finding(
                        .recoveryFailure,
                        "verify: corrupt \(report.corruptBlobs), missing \(report.missingBlobs), "
                            + "stray \(report.strayFiles), recovery \(report.recovery)"))
            }
            let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: self.store + "/quarantine")) ?? []
            if !quarantined.isEmpty {
                outcome.findings.append(
                    Finding(.recoveryFailure, "quarantine/ holds \(quarantined.sorted()): a process found damage"))
            }
            for (worker, log) in logs.enumerated() {
                for key in 0..<TortureWorker.keyCount {
                    try check(store, worker: worker, key: key, log: log, evictions: evictions, into: &outcome)
                }
            }
            try store.close()
        } catch {
            outcome.findings.append(Finding(.recoveryFailure, "check: \(error)"))
        }
        return outcome
    }

    private func check(
        _ store: BlobStore, worker: Int, key: Int, log: WorkerLog, evictions: [WorkerLog.Eviction],
        into outcome: inout Outcome
    ) throws {
        let name = StoreKey("\(prefixes[worker])-\(key)")
        let acknowledged = log.states[key]
        let inFlight = log.inFlight.flatMap { $0.key == key ? $0.state : nil }
        let metadata = try store.info(for: name)?.metadata ?? Data()
        let found: KeyState
        if let value = try store.value(for: name) {
            guard let version = TortureContent.version(metadata: metadata),
                value == TortureContent.bytes(key: name.string, version: version)
            else {
                let named = String(decoding: metadata, as: UTF8.self)
                outcome.findings.append(
                    Finding(
                        .wrongBytes,
                        "\(name): expected \(acknowledged), read \(value.count) bytes that are not those of "
                            + "version \"\(named)\" its metadata names"))
                return
            }
            found = .version(version)
        } else {
            found = .absent
        }
        if let inFlight, inFlight != acknowledged {
            outcome.inFlight += 1
            if found == inFlight { outcome.inFlightApplied += 1 }
        }
        if found == .absent && found != acknowledged && found != inFlight
            && evictions.contains(where: { $0.explains(putBegan: log.putBegan[key], seen: .max) })
        {
            outcome.evicted += 1
            outcome.states[worker][key] = found
            return
        }
        guard found == acknowledged || found == inFlight else {
            let alternative = inFlight.map { " (or \($0), if the change in flight took effect)" } ?? ""
            outcome.findings.append(Finding(.lost, "\(name): expected \(acknowledged)\(alternative), read \(found)"))
            return
        }
        outcome.states[worker][key] = found
    }
}
