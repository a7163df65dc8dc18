/// The counts a crash-torture run reports in its one summary line.
struct TortureSummary {
    var seed: UInt64
    var rounds = 0
    /// Puts and removes that returned.
    var acknowledged = 0
    var lost = 0
    var wrongBytes = 0
    var recoveryFailures = 0
    var errors = 0
    var reads = 0
    var compactions = 0
    var collections = 0
    /// Collections with an eviction limit that returned having evicted something, and the
    /// absences evictions explain.
    var evictions = 0
    var evicted = 0
    var kills = 0
    /// Kills by the stage of the worker's log when it died (`WorkerLog.stage`).
    var killsDuring: [String: Int] = [:]
    /// Changes a worker had begun but not acknowledged when it died, and how many of them the
    /// store shows.
    var inFlight = 0
    var inFlightApplied = 0
    var seconds = 0.0

    init(seed: UInt64) {
        self.seed = seed
    }

    var failed: Bool { lost + wrongBytes + recoveryFailures + errors > 0 }

    mutating func count(_ findings: [Finding]) {
        for finding in findings {
            switch finding.kind {
            case .lost: lost += 1
            case .wrongBytes: wrongBytes += 1
            case .recoveryFailure: recoveryFailures += 1
            case .error: errors += 1
            }
        }
    }

    mutating func count(_ log: WorkerLog) {
        acknowledged += log.acknowledged
        reads += log.reads
        compactions += log.compactions
        collections += log.collections
        evictions += log.evictionsReturned
    }

    private var stages: String {
        let order = ["open", "put", "rm", "get", "compact", "gc", "evict", "between", "close", "exit"]
        return order.compactMap { stage in killsDuring[stage].map { "\(stage) \($0)" } }.joined(separator: ", ")
    }

    var line: String {
        "rounds: \(rounds), acknowledged: \(acknowledged), lost: \(lost), wrong bytes: \(wrongBytes), "
            + "recovery failures: \(recoveryFailures), errors: \(errors), reads: \(reads), "
            + "compactions: \(compactions), gcs: \(collections), evicting gcs: \(evictions) "
            + "(absences they explain: \(evicted)), kills: \(kills) (\(stages)), in flight: \(inFlight) "
            + "(took effect: \(inFlightApplied)), seed: \(seed), seconds: \(Int(seconds.rounded()))"
    }
}
