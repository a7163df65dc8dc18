// Shared by the harnesses of the BlobStoreHTTP module (the target BlobStoreHTTPFuzzSupport,
// declared only for fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import Foundation
import Glibc

@testable import BlobStoreHTTP

/// Prints `PROPERTY VIOLATED: message` to standard error and traps.
func fail(_ message: String) -> Never {
    let report = "PROPERTY VIOLATED: \(message)\n"
    _ = report.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    fatalError(message)
}

/// Reads `bytes` as a cache record's JSON with the fast reader (`RecordJSONReader`) and checks:
///
/// - (a) it never traps, whatever the bytes;
/// - (b) what it reads, `JSONDecoder` reads too, and the same: both records written again by
///   `RecordJSON` are the same bytes (so every string, number and time is the same, byte for
///   byte, not merely equal as Swift compares strings);
/// - (c) a record it reads, written again and read again, is the same record.
func checkRecordJSONProperties(_ bytes: [UInt8]) {
    let json = Data(bytes)
    guard let fast = RecordJSONReader.record(in: json) else { return }
    guard let slow = try? JSONDecoder().decode(CacheRecord.self, from: json) else {
        fail("the fast reader read a record JSONDecoder refuses")
    }
    guard let fastBytes = try? RecordJSON.encode(fast), let slowBytes = try? RecordJSON.encode(slow) else {
        fail("a record read could not be written again")
    }
    if fastBytes != slowBytes { fail("the fast reader and JSONDecoder read different records") }
    guard let again = RecordJSONReader.record(in: fastBytes), (try? RecordJSON.encode(again)) == fastBytes else {
        fail("a record written again does not read back the same")
    }
}
