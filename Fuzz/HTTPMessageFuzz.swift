// libFuzzer harness for the caching proxy's parsers of untrusted input: request heads from
// clients, response heads from origins, and the field values it reads (byte ranges, HTTP dates,
// Cache-Control and CDN-Cache-Control). Build and run with `Fuzz/run.sh HTTPMessage 60`;
// Fuzz/README.md lists the properties.
//
// The input is read as a request head, as a response head, and as a field value (with a body
// length from its first byte for the byte ranges).

import Foundation

@testable import BlobStoreProxy
@testable import BlobStoreProxyFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    checkRequestProperties(bytes)
    checkResponseProperties(bytes)
    let length = Int(bytes.first ?? 0) * 7
    checkFieldValueProperties(String(decoding: bytes.dropFirst(), as: UTF8.self), length: length)
    return 0
}
