// Shared by the harnesses of the BlobStoreNet module (the target BlobStoreNetFuzzSupport, declared
// only for fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import BlobStore
import BlobStoreNet
import Foundation
import Glibc

/// Traps with `message` unless `condition` holds.
@inline(__always)
func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fail(message()) }
}

/// Prints `PROPERTY VIOLATED: message` to standard error and traps.
func fail(_ message: String) -> Never {
    let report = "PROPERTY VIOLATED: \(message)\n"
    _ = report.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    fatalError(message)
}

/// The server of the harness's connections, as errors name it.
let fuzzPeer = NetworkPeer(
    name: "fuzz", label: "fuzz", code: BlobStoreError.Code("fuzz"), addressAdvice: "", trustedCAs: "")

/// Reads `bytes` as the reply to a `method` request, sent by a server that then closes the
/// connection (one end of a socket pair), and checks what the client made of it:
///
/// - (a) a head that reads has a status of 100 to 999 that is not interim (1xx but 101 are
///   skipped, 101 is refused), and every field name is non-empty without whitespace;
/// - (b) a body read whole is no longer than the bytes sent, is exactly its `Content-Length`
///   when framed by one, is empty when the reply has none (`HEAD`, 204, 304), and came in
///   pieces of at most 64 KiB, none empty;
/// - (c) a body refused as too large by `maximum` is `tooLarge`; every other failure has the
///   peer's code.
func checkReplyProperties(_ bytes: [UInt8], method: String, maximum: Int) {
    var pair: [CInt] = [0, 0]
    let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
    guard socketpair(AF_UNIX, type, 0, &pair) == 0 else { fail("socketpair: errno \(errno)") }
    // The whole input fits in the socket's buffer (inputs are at most a few KiB).
    let sent = bytes.withUnsafeBytes { send(pair[1], $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) }
    check(sent == bytes.count, "sent \(sent) of \(bytes.count) bytes")
    _ = close(pair[1])
    let connection = TCPConnection(connected: SocketDescriptor(rawValue: pair[0]), server: fuzzPeer)
    connection.startOperation(timeout: .seconds(5))
    do {
        let exchange = try HTTPExchange(connection: connection, method: method, deadlineIsIdle: false)
        let head = exchange.head
        check((100...999).contains(head.status) && !(100...199).contains(head.status), "status \(head.status)")
        for field in head.fields {
            check(
                !field.name.isEmpty && !field.name.contains(" ") && !field.name.contains("\t"), "name '\(field.name)'")
        }
        var pieces = 0
        let count = try exchange.readBody(maximum: maximum) { piece in
            check(!piece.isEmpty && piece.count <= 64 << 10, "a piece of \(piece.count) bytes")
            pieces += 1
        }
        check(count <= bytes.count, "a body of \(count) bytes from \(bytes.count) sent")
        switch exchange.framing {
        case .none: check(count == 0 && head.hasNoBody(method: method), "a body without framing")
        case .length(let length): check(count == length, "\(count) bytes for Content-Length \(length)")
        case .chunked, .untilClose: break
        }
        check(count == 0 || pieces > 0, "a body of \(count) bytes in no piece")
    } catch let error as BlobStoreError {
        check(error.code == fuzzPeer.code || error.code == .tooLarge, "unexpected error \(error)")
    } catch {
        fail("unexpected error \(error)")
    }
}
