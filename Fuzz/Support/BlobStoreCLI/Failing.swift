// Shared by the harnesses of the BlobStoreCLI module (the target BlobStoreCLIFuzzSupport, declared only for
// fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import BlobStore
import Glibc

@testable import BlobStoreCLI

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

/// `text` as a Swift string literal, with every non-ASCII or control scalar escaped, so that a
/// failure message shows exactly which scalars (combining marks, look-alikes) were involved.
func quoted(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case " "..."~": result.unicodeScalars.append(scalar)
        default: result += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return result + "\""
}
