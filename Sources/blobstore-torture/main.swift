// A worker process for crash and concurrency tests: puts deterministic values in a loop and
// prints `ack <i>` after each put returns, so a test that SIGKILLs it knows exactly which puts
// were acknowledged. The value for index i is `TortureValue.bytes(i)`; tests recompute it.
//
//   blobstore-torture put-loop STORE PREFIX COUNT [none|batched|always] [START_AT_MS]
//
// With START_AT_MS (wall-clock milliseconds since the epoch), the loop opens the store and then
// waits until that moment, so that several workers started by a test put at the same time.
//
//   blobstore-torture compact STORE [POINT]
//
// Compacts the store and prints `compacted`; with POINT (a `TestHooks.Point` name such as
// `compactionCurrentSwapped`), the process SIGKILLs itself when compaction reaches it. POINT,
// and stop-after-link below, need a build with fault injection (a debug build, or
// `-Xswiftc -DBLOBSTORE_FAULT_INJECTION`: Package.swift); other builds refuse them with exit 64.
//
//   blobstore-torture stop-after-link STORE KEY
//
// Puts `TortureValue.bytes(7)` under KEY, stopping itself (SIGSTOP) after the blob is linked
// and before its record is appended; prints `ack` once the put returns (after SIGCONT).
//
//   blobstore-torture torture --store DIR [--rounds N] [--workers W] [--seed S] [--durability MODE]
//                             [--eviction on|off]
//
// Crash torture (`TortureDriver`, docs/reliability.md): rounds of W worker processes doing mixed
// put/get/remove/compact/gc on one store, SIGKILLed at random moments; after each round the store
// is opened and checked against what the workers acknowledged. Prints one summary line; exits 1
// if anything acknowledged was lost, a read was wrong, recovery failed or an operation failed.
// MODE is none, batched, always, or mixed (the default: each worker of each round draws one).
// With eviction on (the default) a quarter of the collections evict to a capacity or an entry limit.
//
//   blobstore-torture worker STORE PREFIX FIRST_VERSION SEED OPERATIONS none|batched|always on|off
//
// One crash-torture worker (`TortureWorker`), started by `torture`.

@_spi(Testing) import BlobStore
import Foundation

/// The value stored under `<prefix>-<i>`: 64 distinct contents (so keys share blobs), sizes
/// from 0 to about 8 KiB.
enum TortureValue {
    static func bytes(_ index: Int) -> Data {
        let seed = index % 64
        return Data(String(repeating: "value-\(seed)-", count: seed * 13).utf8)
    }
}

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            ("usage: blobstore-torture put-loop STORE PREFIX COUNT [none|batched|always] [START_AT_MS]\n"
                + "       blobstore-torture compact STORE [POINT]\n"
                + "       blobstore-torture stop-after-link STORE KEY\n"
                + "       \(TortureOptions.usage)\n").utf8))
    exit(64)
}

/// Exits 64: `mode` stops at a `TestHooks` point, which this build does not have.
func withoutFaultInjection(_ mode: String) -> Never {
    FileHandle.standardError.write(
        Data(
            ("blobstore-torture: \(mode) needs a build with fault injection "
                + "(a debug build, or -Xswiftc -DBLOBSTORE_FAULT_INJECTION)\n").utf8))
    exit(64)
}

func putLoop(_ arguments: [String]) throws {
    guard arguments.count >= 3, let count = Int(arguments[2]) else { usage() }
    let durability = arguments.count > 3 ? Durability(rawValue: arguments[3]) : .always
    guard let durability else { usage() }
    let startAt = arguments.count > 4 ? Double(arguments[4]) : 0
    guard let startAt else { usage() }
    let store = try BlobStore(at: arguments[0], configuration: .init(durability: durability))
    let wait = startAt / 1000 - Date().timeIntervalSince1970
    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    for index in 0..<count {
        try store.put(TortureValue.bytes(index), for: StoreKey("\(arguments[1])-\(index)"))
        FileHandle.standardOutput.write(Data("ack \(index)\n".utf8))
    }
    try store.close()
}

func compact(_ arguments: [String]) throws {
    guard arguments.count >= 1 else { usage() }
    if arguments.count > 1 {
        #if BLOBSTORE_FAULT_INJECTION
            guard let point = TestHooks.Point(rawValue: arguments[1]) else { usage() }
            TestHooks.install { reached in
                if reached == point { kill(getpid(), SIGKILL) }
            }
        #else
            withoutFaultInjection("compact STORE POINT")
        #endif
    }
    let store = try BlobStore(at: arguments[0], configuration: .init(durability: .always))
    try store.compact()
    try store.close()
    FileHandle.standardOutput.write(Data("compacted\n".utf8))
}

func stopAfterLink(_ arguments: [String]) throws {
    guard arguments.count == 2 else { usage() }
    #if BLOBSTORE_FAULT_INJECTION
        TestHooks.install { reached in
            if reached == .putBlobLinked { raise(SIGSTOP) }
        }
    #else
        withoutFaultInjection("stop-after-link")
    #endif
    let store = try BlobStore(at: arguments[0], configuration: .init(durability: .always))
    try store.put(TortureValue.bytes(7), for: StoreKey(arguments[1]))
    try store.close()
    FileHandle.standardOutput.write(Data("ack\n".utf8))
}

func torture(_ arguments: [String]) throws {
    guard let options = TortureOptions(arguments) else { usage() }
    exit(try TortureDriver(options: options).run())
}

func worker(_ arguments: [String]) {
    guard let worker = TortureWorker(arguments: arguments) else { usage() }
    exit(worker.run())
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { usage() }
do {
    let rest = Array(arguments.dropFirst(2))
    switch arguments[1] {
    case "put-loop": try putLoop(rest)
    case "compact": try compact(rest)
    case "stop-after-link": try stopAfterLink(rest)
    case "torture": try torture(rest)
    case "worker": worker(rest)
    default: usage()
    }
} catch {
    FileHandle.standardError.write(Data("blobstore-torture: \(error)\n".utf8))
    exit(74)
}
