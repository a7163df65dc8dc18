import Foundation

/// The workers' intervals added up by phase of the failover, printed as a table.
struct LoadReport {
    let kill: Int
    let healthy: Int
    let restart: Int
    let master: String
    let buckets: [[LoadBucket]]

    init(_ options: LoadOptions) throws {
        kill = try options.integer("kill")
        healthy = try options.integer("healthy")
        restart = try options.integer("restart")
        master = options.optionalString("master") ?? "a master"
        guard !options.operands.isEmpty else { throw LoadOptions.UsageError(message: "no worker output") }
        let decoder = JSONDecoder()
        buckets = try options.operands.map { file in
            let text = try String(contentsOfFile: file, encoding: .utf8)
            return try text.split(separator: "\n").map { try decoder.decode(LoadBucket.self, from: Data($0.utf8)) }
        }
    }

    /// Prints the table; returns the exit status (1 for a wrong byte, an error that reached a
    /// caller, or no operation after the failover).
    func print() -> Int32 {
        let all = buckets.joined()
        let step = LoadWorker.bucketMilliseconds
        let end = (all.map(\.t).max() ?? 0) + step
        // Whole intervals: "before" ends with the last one that ended before the kill, "after"
        // starts with the first that started after the cluster was healthy again, and "during"
        // has the intervals between (a little of either side, never of the failover in another).
        let killed = kill / step * step
        let recovered = (healthy + step - 1) / step * step
        let phases = [("before", 0, killed), ("during", killed, recovered), ("after", recovered, end)]
        let seconds = { (from: Int, to: Int) in Double(max(to - from, 1)) / 1000 }
        Swift.print(
            "\(buckets.count) processes, \(String(format: "%.1f", seconds(0, end))) s; \(master) killed at "
                + "\(String(format: "%.1f", seconds(0, kill))) s, the cluster healthy again at "
                + "\(String(format: "%.1f", seconds(0, healthy))) s (a \(String(format: "%.1f", seconds(kill, healthy))) s "
                + "window), the old master restarted at \(String(format: "%.1f", seconds(0, restart))) s")
        Swift.print(
            "phase    seconds     ops/s   local hits  remote hits  remote misses  hit ratio  errors  MB up  MB down  wrong bytes"
        )
        var total = LoadBucket()
        var after = LoadBucket()
        for (name, from, to) in phases {
            let sum = all.filter { $0.t >= from && $0.t < to }.reduce(LoadBucket(), +)
            total = total + sum
            if name == "after" { after = sum }
            Swift.print(row(name, sum, seconds(from, to)))
        }
        Swift.print(row("total", total, seconds(0, end)))
        Swift.print("wrong bytes: \(total.wrongBytes); errors that reached a caller: \(total.thrown)")
        return total.wrongBytes == 0 && total.thrown == 0 && after.operations > 0 ? 0 : 1
    }

    private func row(_ name: String, _ sum: LoadBucket, _ seconds: Double) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            String(repeating: " ", count: max(0, width - text.count)) + text
        }
        return name.padding(toLength: 7, withPad: " ", startingAt: 0) + pad(String(format: "%.1f", seconds), 8)
            + pad(String(format: "%.0f", Double(sum.operations) / seconds), 10) + pad("\(sum.localHits)", 13)
            + pad("\(sum.remoteHits)", 13) + pad("\(sum.remoteMisses)", 15)
            + pad(String(format: "%.2f", sum.hitRatio), 11)
            + pad("\(sum.remoteErrors)", 8) + pad(String(format: "%.1f", Double(sum.bytesUp) / 1e6), 7)
            + pad(String(format: "%.1f", Double(sum.bytesDown) / 1e6), 9) + pad("\(sum.wrongBytes)", 13)
    }
}
