// BlobStore's benchmark.
//
//   blobstore-bench --workload small|large --dir DIR [--data DATADIR] --phase put,get,miss,reopen
//                   [--count N] [--durability none|batched|always] [--no-verify] [--pack-threshold BYTES]
//
// One peer of the shared benchmark (../shared/bench/CONTRACT.md): run it beside the others with
// `../shared/bench/run_all.sh --swift '<abs path>/blobstore-bench --durability none'`.
//
//   blobstore-bench scale [--dir DIR] [--entries N] [--distinct D] [--stream-mib M] [--only LIST] [--keep]
//
// BlobStore's own scale workloads (`ScaleRun`): a store of N entries (default 1,000,000) opened
// from a journal and from a manifest, compacted and evicted, puts and gets on 1 and 2 threads, a
// streamed put and get of M MiB (default 2048). docs/benchmarks.md has the results.
//
//   blobstore-bench hit-ratio [--trace FILE]... [--generate SPEC]... [--fractions LIST] [--policies LIST] ...
//
// Miss ratios of the eviction policies on traces (`HitRatioRun`; `blobstore-bench hit-ratio --help`
// lists the options), through the policies' queues alone and through a real store;
// scripts/hit-ratio.sh puts them beside libCacheSim's.
//
//   blobstore-bench chunking [--mib N] [--averages LIST] [--pair OLD NEW]...
//
// The content-defined chunker's speed and dedup at several average chunk sizes (`ChunkingRun`);
// scripts/chunking.sh runs it with two versions of this repository's sources as the pair.
//
//   blobstore-bench large [--dir DIR] [--sizes LIST] [--range-mib N] [--range-reads N]
//
// Large values through the store, whole and chunked, beside raw files and SHA-256's limits, and
// a 4 KiB verified range read from a large value stored whole (`LargeRun`).

import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    if arguments.first == "scale-open", arguments.count == 3 {
        try ScaleRun.measureOpen(arguments[1], label: arguments[2])
    } else if arguments.first == "scale-stream", arguments.count == 3, let mebibytes = Int(arguments[2]) {
        try ScaleRun.stream(in: arguments[1], mebibytes: mebibytes)
    } else if arguments.first == "hit-ratio", arguments.dropFirst().contains("--help") {
        print(HitRatioRun.usage)
    } else if arguments.first == "hit-ratio" {
        try HitRatioRun(arguments: Array(arguments.dropFirst())).run()
    } else if arguments.first == "chunking", arguments.dropFirst().contains("--help") {
        print(ChunkingRun.usage)
    } else if arguments.first == "chunking" {
        try ChunkingRun(arguments: Array(arguments.dropFirst())).run()
    } else if arguments.first == "large", arguments.dropFirst().contains("--help") {
        print(LargeRun.usage)
    } else if arguments.first == "large" {
        try LargeRun(arguments: Array(arguments.dropFirst())).run()
    } else if arguments.first == "scale" {
        try ScaleRun(arguments: Array(arguments.dropFirst())).run()
    } else {
        try PeerRun(arguments: arguments).run()
    }
} catch let error as BenchError {
    FileHandle.standardError.write(Data("blobstore-bench: \(error)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("blobstore-bench: \(error)\n".utf8))
    exit(1)
}
