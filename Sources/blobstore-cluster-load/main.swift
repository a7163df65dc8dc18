// The load test of the remote tier against a Redis Cluster (docs/remote.md, "Load test"), run by
// scripts/cluster-load.sh, which starts the cluster, kills a master and restarts it.
//
//   blobstore-cluster-load worker --remote URL --store DIR --keys N --size BYTES --seconds S
//                                 --start EPOCH_MS [--capacity BYTES] [--cool-down MS] [--seed N]
//
// One process of the load: its own local store at DIR (evicting past --capacity bytes), a
// TieredStore on the remote URL, putting and getting the values of N shared keys (about BYTES
// each, the same bytes for a key in every process) from EPOCH_MS (wall-clock milliseconds) for S
// seconds. Prints one JSON line per 250 ms (`LoadBucket`), then exits 0.
//
//   blobstore-cluster-load report --kill MS --healthy MS --restart MS [--master NAME] FILE…
//
// Adds up the workers' lines (FILE…) by phase: before the kill, during the failover (kill to
// healthy), and after; MS are milliseconds from the start. Prints operations per second, the
// remote hit ratio of each phase and the wrong bytes; exits 1 when a byte was wrong, an error
// reached a caller or nothing ran after the failover.

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "worker":
        try LoadWorker(LoadOptions(Array(arguments.dropFirst()))).run()
    case "report":
        exit(try LoadReport(LoadOptions(Array(arguments.dropFirst()))).print())
    default:
        throw LoadOptions.UsageError(message: "expected worker or report")
    }
} catch let error as LoadOptions.UsageError {
    FileHandle.standardError.write(
        Data("Error: \(error.message)\nUsage: blobstore-cluster-load worker|report …\n".utf8))
    exit(64)
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
