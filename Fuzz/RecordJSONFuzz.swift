// libFuzzer harness for the fast reader of the HTTP cache's records (`RecordJSONReader`): the
// JSON kept as each entry's metadata, read on every memory hit whose record is not remembered
// and on every disk hit. Build and run with `Fuzz/run.sh RecordJSON 60`; Fuzz/README.md lists
// the properties.
//
// The input is the metadata's bytes.

import Foundation

@testable import BlobStoreHTTPFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    checkRecordJSONProperties(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
