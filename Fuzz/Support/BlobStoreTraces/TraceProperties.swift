// Shared by the harnesses of the BlobStoreTraces module (the target BlobStoreTracesFuzzSupport,
// declared only for fuzz builds: Package.swift).
// Their input needs no transformation to replay: libFuzzer's crash-<sha1> file is the repro.

import Glibc

@testable import BlobStoreTraces

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

// MARK: - oracleGeneral

/// (a) The reader refuses exactly the lengths that are not whole records, naming the partial
/// record; (b) what it accepts is one request per record, which written back keeps each record's
/// first 16 bytes (time, id, size) and reads back to the same requests; (c) the requests written
/// as CSV read back the same.
func checkOracleGeneralProperties(_ bytes: [UInt8]) {
    let recordSize = OracleGeneralFormat.recordSize
    let requests: [TraceRequest]
    do {
        requests = try OracleGeneralFormat.read(bytes)
    } catch {
        check(bytes.count % recordSize != 0, "\(bytes.count) bytes of whole records refused: \(error)")
        check(
            error.code == .truncated && error.record == bytes.count / recordSize,
            "a cut record reported as \(error.code), record \(String(describing: error.record)): \(error)")
        return
    }
    check(bytes.count % recordSize == 0, "\(bytes.count) bytes, not whole records, accepted")
    check(requests.count == bytes.count / recordSize, "\(requests.count) requests from \(bytes.count) bytes")
    let written: [UInt8]
    do {
        written = try OracleGeneralFormat.encode(requests)
    } catch {
        fail("requests read from oracleGeneral cannot be written back: \(error)")
    }
    check(written.count == bytes.count, "written back as \(written.count) bytes, read from \(bytes.count)")
    for start in stride(from: 0, to: bytes.count, by: recordSize) {
        check(
            written[start..<start + 16] == bytes[start..<start + 16],
            "record \(start / recordSize)'s time, id or size changed when written back")
    }
    check(
        (try? OracleGeneralFormat.read(written)) == requests, "written back, the trace reads as other requests")
    check(
        (try? CSVTraceFormat.read(CSVTraceFormat.encode(requests))) == requests,
        "written as CSV, the trace reads as other requests")
}

// MARK: - CSV

/// (a) An error names a line of the input (none only for an empty input); (b) what the reader
/// accepts has one request per line after the header, each line as the writer writes that
/// request but for leading zeros and a `\r` (so every number was read exactly); written with
/// `CSVTraceFormat.encode`, the requests read back the same, and that text is a fixed point (read
/// and written again, the same bytes); (c) requests whose times fit 32 bits read back the same
/// from oracleGeneral.
func checkCSVProperties(_ bytes: [UInt8]) {
    let lineBreaks = bytes.filter { $0 == UInt8(ascii: "\n") }.count
    let lines = bytes.last == UInt8(ascii: "\n") ? lineBreaks : lineBreaks + 1
    let requests: [TraceRequest]
    do {
        requests = try CSVTraceFormat.read(bytes)
    } catch {
        if bytes.isEmpty {
            check(error.code == .malformed && error.line == nil, "the empty input refused as \(error)")
        } else {
            check(
                error.line.map { (1...lines).contains($0) } == true,
                "an error on line \(String(describing: error.line)) of \(lines): \(error)")
            check(error.code == .malformed || error.code == .outOfRange, "a CSV refused with \(error.code)")
        }
        check(!error.message.isEmpty, "an error without a message")
        return
    }
    check(requests.count == lines - 1, "\(requests.count) requests from \(lines) lines")
    let written = CSVTraceFormat.encode(requests)
    let writtenLines = written.split(separator: UInt8(ascii: "\n")).dropFirst()
    for (number, (line, expected)) in zip(canonicalLines(bytes), writtenLines).enumerated() {
        check(line == Array(expected), "line \(number + 2) was read as \(String(decoding: expected, as: UTF8.self))")
    }
    guard let again = try? CSVTraceFormat.read(written) else {
        fail("the requests written as CSV are refused: \(String(decoding: written.prefix(200), as: UTF8.self))")
    }
    check(again == requests, "written back as CSV, the trace reads as other requests")
    check(CSVTraceFormat.encode(again) == written, "the CSV writer's output is not a fixed point")
    if requests.allSatisfy({ $0.time <= UInt64(UInt32.max) }) {
        guard let binary = try? OracleGeneralFormat.encode(requests) else {
            fail("requests with 32-bit times cannot be written as oracleGeneral")
        }
        check((try? OracleGeneralFormat.read(binary)) == requests, "written as oracleGeneral, other requests")
    }
}

/// The lines after the header, each without its `\r` and with the leading zeros of its fields
/// dropped (`0` kept).
private func canonicalLines(_ bytes: [UInt8]) -> [[UInt8]] {
    var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropFirst()
    if bytes.last == UInt8(ascii: "\n") { lines = lines.dropLast() }
    return lines.map { line in
        let text = line.last == UInt8(ascii: "\r") ? line.dropLast() : line
        let fields = text.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { field in
            let digits = field.drop { $0 == UInt8(ascii: "0") }
            return digits.isEmpty ? [UInt8(ascii: "0")] : Array(digits)
        }
        return Array(fields.joined(separator: [UInt8(ascii: ",")]))
    }
}
