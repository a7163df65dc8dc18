// A child process for the tests that measure memory: each mode does one thing a test checks,
// prints what it found, and exits, so that the test reads this process's own peak resident
// memory (`ChildProcess.run`, Tests/BlobStoreTestKit, reads its VmHWM while it runs), not the high-water mark
// of a test process that runs other tests in parallel.
//
//   blobstore-test-helper put-file STORE KEY FILE
//
// Streams FILE into the store at STORE under KEY (`put(contentsOf:for:)`) and prints three
// lines: the digest, the size `info(for:)` reports, and the path of `fileURL(for:)`.
//
//   blobstore-test-helper open STORE
//
// Opens the store at STORE (nothing packed, no syncs) and prints its recovery report and entry
// count, one `name: value` a line: `corruptionOffset`, `corruptionReason`, `droppedBytes`,
// `entries`.
//
//   blobstore-test-helper run-ops STORE POLICY MAX-ENTRIES FILE
//
// Opens the store at STORE with at most MAX-ENTRIES entries evicted by POLICY down to the limit,
// every read appended at once, and runs FILE's operations, one a line: `p KEY` puts the key's
// own name as its value, `g KEY` reads it (EvictionPolicyTests: a second process's share).

import BlobStore
import Foundation

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            "usage: blobstore-test-helper put-file STORE KEY FILE | open STORE | run-ops STORE POLICY MAX-ENTRIES FILE\n"
                .utf8))
    exit(64)
}

/// No syncs and nothing packed, as the tests' `looseOnly`.
let configuration = {
    var configuration = BlobStore.Configuration(durability: .none)
    configuration.packThreshold = 0
    return configuration
}()

func putFile(_ arguments: [String]) throws {
    guard arguments.count == 3 else { usage() }
    let store = try BlobStore(at: arguments[0], configuration: configuration)
    let key = StoreKey(arguments[1])
    let digest = try store.put(contentsOf: URL(fileURLWithPath: arguments[2]), for: key)
    let size = try store.info(for: key)?.size ?? 0
    let url = try store.fileURL(for: key)
    try store.close()
    print(digest.hex)
    print(size)
    print(url?.path ?? "")
}

func open(_ arguments: [String]) throws {
    guard arguments.count == 1 else { usage() }
    let store = try BlobStore(at: arguments[0], configuration: configuration)
    let report = store.recoveryReport
    let entries = try store.stats().entries
    try store.close()
    print("corruptionOffset: \(report.corruptionOffset.map(String.init) ?? "none")")
    print("corruptionReason: \(report.corruptionReason ?? "none")")
    print("droppedBytes: \(report.droppedBytes)")
    print("entries: \(entries)")
}

func runOperations(_ arguments: [String]) throws {
    guard arguments.count == 4, let policy = EvictionPolicy(rawValue: arguments[1]), let maxEntries = Int(arguments[2])
    else { usage() }
    var configuration = BlobStore.Configuration(durability: .none)
    configuration.limits = EvictionLimits(maxEntries: maxEntries, lowWater: 1, policy: policy)
    configuration.accessBatchSize = 1
    let store = try BlobStore(at: arguments[0], configuration: configuration)
    for line in try String(contentsOfFile: arguments[3], encoding: .utf8).split(separator: "\n") {
        let key = StoreKey(String(line.dropFirst(2)))
        if line.hasPrefix("p ") {
            try store.put(Data(key.description.utf8), for: key)
        } else {
            _ = try store.value(for: key)
        }
    }
    try store.close()
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { usage() }
do {
    let rest = Array(arguments.dropFirst(2))
    switch arguments[1] {
    case "put-file": try putFile(rest)
    case "open": try open(rest)
    case "run-ops": try runOperations(rest)
    default: usage()
    }
} catch {
    FileHandle.standardError.write(Data("blobstore-test-helper: \(error)\n".utf8))
    exit(74)
}
