// libFuzzer harness for ManifestTable, the format-2 manifest read in place. Build and run with
// `Fuzz/run.sh ManifestTable 60`; Fuzz/README.md lists the properties.
//
// The input is a whole manifest file, header included, as on disk. Each input is checked twice:
// as given, and with every frame's checksums and the trailer's CRC repaired, so mutations reach
// the index and block decoders instead of dying at a CRC check.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkManifestTableProperties(bytes, what: "input")
    let repaired = repairingManifestChecksums(bytes)
    if repaired != bytes {
        checkManifestTableProperties(repaired, what: "crc-repaired input")
    }
    return 0
}
