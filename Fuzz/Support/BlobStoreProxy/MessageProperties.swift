// Shared by the harnesses of the BlobStoreProxy module (the target BlobStoreProxyFuzzSupport,
// declared only for fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import BlobStoreHTTP
import Foundation
import Glibc

@testable import BlobStoreProxy

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

/// The bytes of `request` as a client sends them: request line, fields, no final empty line
/// (the head as the parser receives it).
func serialized(_ request: RequestHead) -> [UInt8] {
    var text = "\(request.method) \(request.target) HTTP/1.\(request.minorVersion)\r\n"
    for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
    return Array(text.utf8)
}

/// (a) A request head that parses, written back, parses to the same request; its framing, when
/// it has one, is never both a length and chunked.
func checkRequestProperties(_ bytes: [UInt8]) {
    guard let request = try? HeadParser.request(bytes[...], maxFields: 100) else { return }
    check(!request.method.isEmpty && !request.target.isEmpty, "a request parsed with an empty method or target")
    guard let again = try? HeadParser.request(serialized(request)[...], maxFields: 100) else {
        fail("a parsed request, written back, does not parse")
    }
    check(again == request, "a parsed request, written back, parses differently")
    if let framing = try? HeadParser.framing(of: request) {
        let both = request.headers.contains("Content-Length") && request.headers.contains("Transfer-Encoding")
        check(!both, "a request with Content-Length and Transfer-Encoding has a framing: \(framing)")
        if case .length(let length) = framing { check(length > 0, "a length framing of \(length)") }
    }
}

/// (b) A response head that parses, serialized as the proxy sends it, parses to the same status
/// and fields; its framing never traps.
func checkResponseProperties(_ bytes: [UInt8]) {
    guard let response = try? HeadParser.response(bytes[...]) else { return }
    _ = try? HeadParser.framing(of: response, method: "GET")
    let written = response.serialized
    guard let again = try? HeadParser.response(written.dropLast(2)) else {
        fail("a parsed response, serialized, does not parse")
    }
    check(again.status == response.status, "the status changed from \(response.status) to \(again.status)")
    check(again.headers == response.headers, "a parsed response's fields changed when serialized")
}

/// (c) A byte range is inside the body and not empty; dates, directives and ranges never trap.
func checkFieldValueProperties(_ text: String, length: Int) {
    if case .part(let range) = ByteRange.of(text, length: length) {
        check(!range.isEmpty && range.lowerBound >= 0 && range.upperBound <= length, "range \(range) of \(length)")
    }
    if let date = HTTPDate.parse(text) {
        check(HTTPDate.parse(HTTPDate.format(date)) == date, "\(text.debugDescription) does not round-trip")
    }
    _ = CacheControl(text)
    _ = CacheControl(targeted: text)
}
