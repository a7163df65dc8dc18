// libFuzzer harness for the package's HTTP/1.1 client's reader of server replies (`HTTPExchange`:
// the head, interim replies, and bodies by length, chunked or to the end of the stream), which
// the remote tier and `blobstore fetch` use. Build and run with `Fuzz/run.sh HTTPReply 60`;
// Fuzz/README.md lists the properties.
//
// The input's first byte chooses the request's method (GET or HEAD) and the largest body accepted;
// the rest is what the server sends before it closes the connection.

import Foundation

@testable import BlobStoreNetFuzzSupport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let choice = Int(bytes.first ?? 0)
    let maximum = choice & 0x7f == 0x7f ? Int.max : (choice & 0x7f) * 37
    checkReplyProperties(Array(bytes.dropFirst()), method: choice & 0x80 == 0 ? "GET" : "HEAD", maximum: maximum)
    return 0
}
