// A worker process for crash and concurrency tests: puts deterministic values in a loop and
// prints `ack <i>` after each put returns, so a test that SIGKILLs it knows exactly which puts
// were acknowledged. The value for index i is `TortureValue.bytes(i)`; tests recompute it.
//
//   blobstore-torture put-loop STORE PREFIX COUNT [none|batched|always] [START_AT_MS]
//
// With START_AT_MS (wall-clock milliseconds since the epoch), the loop opens the store and then
// waits until that moment, so that several workers started by a test put at the same time.
//
// Issue 4 (crash torture) extends this executable with mixed workloads.

import BlobStore
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
        Data("usage: blobstore-torture put-loop STORE PREFIX COUNT [none|batched|always]\n".utf8))
    exit(64)
}

let arguments = CommandLine.arguments
guard arguments.count >= 5, arguments[1] == "put-loop", let count = Int(arguments[4]) else { usage() }
let durability = arguments.count > 5 ? Durability(rawValue: arguments[5]) : .always
guard let durability else { usage() }
let startAt = arguments.count > 6 ? Double(arguments[6]) : 0
guard let startAt else { usage() }

do {
    let store = try BlobStore(at: arguments[2], configuration: .init(durability: durability))
    let wait = startAt / 1000 - Date().timeIntervalSince1970
    if wait > 0 { Thread.sleep(forTimeInterval: wait) }
    for index in 0..<count {
        try store.put(TortureValue.bytes(index), for: StoreKey("\(arguments[3])-\(index)"))
        FileHandle.standardOutput.write(Data("ack \(index)\n".utf8))
    }
    try store.close()
} catch {
    FileHandle.standardError.write(Data("blobstore-torture: \(error)\n".utf8))
    exit(74)
}
