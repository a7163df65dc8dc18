/// A CSV trace as libCacheSim's CSV reader takes it with a header and the columns time, obj_id
/// and obj_size, in the one form this package reads and writes. In libCacheSim's Python bindings
/// (libcachesim 0.3): `ReaderInitParam(has_header=True, has_header_set=True, delimiter=",",
/// time_field=1, obj_id_field=2, obj_size_field=3, obj_id_is_num=True)` with
/// `TraceType.CSV_TRACE` (without `has_header_set` the reader guesses whether there is a header).
///
///
/// ```
/// time,id,size
/// 0,42,4096
/// 1,7,100
/// ```
///
/// - The first line is a header. Its names are not checked, but it must hold something other
///   than digits and commas: a trace whose first line is a request has no header.
/// - Every other line is `time,id,size`: three fields of decimal digits (leading zeros allowed;
///   no sign, space or quote), `time` and `id` at most `UInt64.max`, `size` at most
///   `UInt32.max`. A size of 0 is read as it is (``TraceRequest``).
/// - Lines end with `\n` or `\r\n`; the last one may end without either. An empty line is
///   refused, except that the final line break is not taken to start one.
///
/// libCacheSim's reader (`libCacheSim/traceReader/generalReader/csv.c`) reads the time with
/// `atof` and asserts that it is below `UINT32_MAX`; the generators' logical times stay far
/// below that.
package enum CSVTraceFormat {
    /// The header ``encode(_:)`` writes.
    package static let header = "time,id,size"

    /// The requests of a whole CSV trace.
    ///
    /// - Parameter bytes: The trace's bytes, header included.
    /// - Returns: One request per line after the header, in order.
    /// - Throws: ``TraceError/Code/malformed`` for a missing header or a line that is not
    ///   `time,id,size`, ``TraceError/Code/outOfRange`` for a number too large for its field;
    ///   ``TraceError/line`` names the line.
    package static func read(_ bytes: some Collection<UInt8>) throws(TraceError) -> [TraceRequest] {
        let bytes = Array(bytes)
        var requests: [TraceRequest] = []
        var start = 0
        var lineNumber = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            lineNumber += 1
            var line = bytes[start..<end]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            if lineNumber == 1 {
                try checkHeader(line)
            } else {
                requests.append(try request(line, lineNumber: lineNumber))
            }
            start = end + 1
        }
        guard lineNumber > 0 else {
            throw TraceError(.malformed, "the CSV trace is empty: it needs at least the header line `\(header)`")
        }
        return requests
    }

    /// `requests` as a CSV trace: the header, then one `time,id,size` line per request, each
    /// ending with `\n`.
    package static func encode(_ requests: [TraceRequest]) -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for request in requests {
            bytes.append(contentsOf: "\(request.time),\(request.id),\(request.size)\n".utf8)
        }
        return bytes
    }

    // MARK: - Lines

    private static func checkHeader(_ line: ArraySlice<UInt8>) throws(TraceError) {
        let isName = line.contains { $0 != UInt8(ascii: ",") && !isDigit($0) }
        guard isName else {
            throw TraceError(
                .malformed,
                "line 1 of the CSV trace, \(quoted(line)), is not a header: add the line `\(header)` before it",
                line: 1)
        }
    }

    private static func request(_ line: ArraySlice<UInt8>, lineNumber: Int) throws(TraceError) -> TraceRequest {
        let fields = line.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard fields.count == 3 else {
            let found = line.isEmpty ? "an empty line" : "\(fields.count) field\(fields.count == 1 ? "" : "s")"
            throw TraceError(
                .malformed,
                "line \(lineNumber) of the CSV trace has \(found), \(quoted(line)): expected `time,id,size`, "
                    + "three decimal numbers; fix or remove the line",
                line: lineNumber)
        }
        let time = try number(fields[0], "time", at: lineNumber)
        let id = try number(fields[1], "object id", at: lineNumber)
        let size = try number(fields[2], "size", at: lineNumber)
        guard let size = UInt32(exactly: size) else {
            throw TraceError(
                .outOfRange,
                "line \(lineNumber) of the CSV trace has size \(size), over the 32-bit limit of \(UInt32.max) "
                    + "bytes (as in libCacheSim): split the object or leave the request out",
                line: lineNumber)
        }
        return TraceRequest(time: time, id: id, size: size)
    }

    /// The field's decimal digits as a number.
    private static func number(_ field: ArraySlice<UInt8>, _ name: String, at lineNumber: Int) throws(TraceError)
        -> UInt64
    {
        guard !field.isEmpty, field.allSatisfy(isDigit) else {
            throw TraceError(
                .malformed,
                "line \(lineNumber) of the CSV trace has \(name) \(quoted(field)), which is not a decimal integer "
                    + "(digits only): fix the line, or map such ids to numbers before writing the trace",
                line: lineNumber)
        }
        var value: UInt64 = 0
        for digit in field {
            let (tens, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = tens.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow, !carry else {
                throw TraceError(
                    .outOfRange,
                    "line \(lineNumber) of the CSV trace has \(name) \(quoted(field)), over the 64-bit limit of "
                        + "\(UInt64.max): fix the line or leave it out",
                    line: lineNumber)
            }
            value = sum
        }
        return value
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// The bytes in quotes, cut at 40 (invalid UTF-8 replaced), for a message.
    private static func quoted(_ bytes: ArraySlice<UInt8>) -> String {
        let text = String(decoding: bytes.prefix(40), as: UTF8.self)
        return "'\(text)\(bytes.count > 40 ? "…" : "")'"
    }
}
