// libFuzzer harness for the trace readers of BlobStoreTraces: libCacheSim's oracleGeneral binary
// records and `time,id,size` CSV with a header, which `blobstore-bench hit-ratio` replays. Build
// and run with `Fuzz/run.sh TraceReader 60`; Fuzz/README.md lists the properties.
//
// The input's first byte picks the format (even: oracleGeneral, odd: CSV); the rest is the trace.

@testable import BlobStoreTraces
@testable import BlobStoreTracesFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let choice = bytes.first else { return 0 }
    let trace = Array(bytes.dropFirst())
    if choice & 1 == 0 {
        checkOracleGeneralProperties(trace)
    } else {
        checkCSVProperties(trace)
    }
    return 0
}
