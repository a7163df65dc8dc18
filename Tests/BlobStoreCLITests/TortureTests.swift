import BlobStoreTestKit
import Foundation
import Testing

@Suite(.serialized) struct TortureTests {
    /// The fields of a `blobstore-torture torture` summary line (`rounds: 20, acknowledged: …`).
    private func fields(_ summary: Substring) -> [String: Int] {
        var fields: [String: Int] = [:]
        for field in summary.split(separator: ", ") {
            let parts = field.split(separator: ": ", maxSplits: 1)
            if parts.count == 2, let number = Int(parts[1].prefix { $0.isNumber }) { fields[String(parts[0])] = number }
        }
        return fields
    }

    /// Three workers doing mixed put, get, remove, compact, gc and evicting gc on one store,
    /// SIGKILLed at random moments round after round, with durabilities mixed: after every round
    /// the store opens clean and holds everything acknowledged that no logged eviction explains,
    /// and no read was ever wrong.
    @Test func crashTortureLosesNothingAcknowledged() throws {
        let scratch = TemporaryDirectory()
        defer { scratch.cleanup() }
        // The driver keeps its workers' logs in `<store>.logs`, inside the scratch directory too.
        let directory = scratch.child("store")
        let run = try ChildProcess.run(
            tortureExecutable,
            ["torture", "--store", directory, "--rounds", String(crashRounds), "--workers", "3"], in: scratch)
        let output = run.stdout
        #expect(run.status == 0, "\(output)")
        let lines = output.split(separator: "\n")
        #expect(lines.count == 1, "\(output)")
        let summary = fields(lines.last ?? "")
        #expect(summary["rounds"] == crashRounds, "\(output)")
        #expect(summary["acknowledged"] ?? 0 > 0, "\(output)")
        #expect(summary["kills"] ?? 0 > 0, "\(output)")
        #expect(summary["evicting gcs"] ?? 0 > 0, "\(output)")
        for field in ["lost", "wrong bytes", "recovery failures", "errors"] {
            #expect(summary[field] == 0, "\(field): \(output)")
        }
    }
}
