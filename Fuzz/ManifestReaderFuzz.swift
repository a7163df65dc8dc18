// libFuzzer harness for ManifestReader.read. Build and run with `Fuzz/run.sh ManifestReader 60`;
// Fuzz/README.md lists the properties.
//
// The input is a format-1 manifest's bytes after the 24-byte file header, as on disk (format 2
// has a harness of its own, ManifestTableFuzz.swift). Each input is checked twice: as given, and
// with every frame's checksum repaired, so mutations reach the entry decoder instead of dying at
// the CRC check.

@testable import BlobStore
@testable import BlobStoreFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkManifestProperties(bytes, what: "input")
    let repaired = repairingChecksums(bytes)
    if repaired != bytes {
        checkManifestProperties(repaired, what: "crc-repaired input")
    }
    return 0
}
