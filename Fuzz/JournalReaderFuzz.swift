// libFuzzer harness for JournalReader.scan. Build and run with `Fuzz/run.sh JournalReader 60`;
// Fuzz/README.md lists the properties.
//
// The input is journal record bytes (no file header), as on disk. Each input is checked twice:
// as given, and with every frame's checksum repaired, so mutations reach the payload decoder
// instead of dying at the CRC check.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkScanProperties(bytes, what: "input")
    let repaired = repairingChecksums(bytes)
    if repaired != bytes {
        checkScanProperties(repaired, what: "crc-repaired input")
    }
    return 0
}
