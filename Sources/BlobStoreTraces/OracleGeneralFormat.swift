/// libCacheSim's oracleGeneral binary trace format: the request records one after another, no
/// header, each 24 bytes, packed, little-endian:
///
/// | Offset | Field | Type |
/// | ---: | --- | --- |
/// | 0 | `clock_time` | `uint32` |
/// | 4 | `obj_id` | `uint64` |
/// | 12 | `obj_size` | `uint32` |
/// | 16 | `next_access_vtime` | `int64` |
///
/// The spec is libCacheSim's reader, `libCacheSim/traceReader/customizedReader/oracle/oracleGeneralBin.h`
/// (github.com/1a1a11a/libCacheSim), and its converter `bin/traceUtils/traceConvOracleGeneral.cpp`,
/// which writes `next_access_vtime` as the 1-based position in the trace (libCacheSim counts
/// requests from 1) of the next request for the same object, or -1 when there is none. The
/// reader takes -1 and `INT64_MAX` alike as "no next access".
///
/// Reading ignores `next_access_vtime`; writing computes it as the converter does, so that
/// libCacheSim's oracle policies (Belady) see the trace's future correctly.
package enum OracleGeneralFormat {
    /// The size of one record.
    package static let recordSize = 24
    /// `next_access_vtime` of a request whose object is not asked for again, as libCacheSim's
    /// converter writes it.
    package static let noNextAccess: Int64 = -1

    /// The requests of a whole oracleGeneral trace.
    ///
    /// - Parameter bytes: The trace's bytes, records only.
    /// - Returns: One request per record, in order; `time` is `clock_time`.
    /// - Throws: ``TraceError/Code/truncated`` when the bytes end inside a record.
    package static func read(_ bytes: some Collection<UInt8>) throws(TraceError) -> [TraceRequest] {
        let bytes = Array(bytes)
        let trailing = bytes.count % recordSize
        guard trailing == 0 else {
            let records = bytes.count / recordSize
            let extra = trailing == 1 ? "1 byte" : "\(trailing) bytes"
            throw TraceError(
                .truncated,
                "the oracleGeneral trace ends \(extra) into record \(records) (0-based): its length, \(bytes.count) "
                    + "bytes, is not a multiple of \(recordSize); the file was cut short or is not an oracleGeneral "
                    + "trace (drop the last \(extra) to read the \(records) whole records)",
                record: records)
        }
        var requests: [TraceRequest] = []
        requests.reserveCapacity(bytes.count / recordSize)
        bytes.withUnsafeBytes { raw in
            for start in stride(from: 0, to: raw.count, by: recordSize) {
                let time = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt32.self))
                let id = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4, as: UInt64.self))
                let size = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 12, as: UInt32.self))
                requests.append(TraceRequest(time: UInt64(time), id: id, size: size))
            }
        }
        return requests
    }

    /// `requests` as an oracleGeneral trace, with each record's `next_access_vtime`
    /// (``nextAccessTimes(_:)``).
    ///
    /// - Throws: ``TraceError/Code/outOfRange`` when a request's time does not fit the format's
    ///   32-bit `clock_time`.
    package static func encode(_ requests: [TraceRequest]) throws(TraceError) -> [UInt8] {
        let nextAccess = nextAccessTimes(requests)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(requests.count * recordSize)
        for (index, request) in requests.enumerated() {
            guard let time = UInt32(exactly: request.time) else {
                throw TraceError(
                    .outOfRange,
                    "request \(index) (0-based) has time \(request.time), over oracleGeneral's 32-bit clock_time "
                        + "(at most \(UInt32.max)): write the trace as CSV, or rebase its times to start at 0",
                    record: index)
            }
            append(time, to: &bytes)
            append(request.id, to: &bytes)
            append(request.size, to: &bytes)
            append(nextAccess[index], to: &bytes)
        }
        return bytes
    }

    /// For each request, the 1-based position of the next request for the same object, or
    /// ``noNextAccess``.
    package static func nextAccessTimes(_ requests: [TraceRequest]) -> [Int64] {
        var next = [Int64](repeating: noNextAccess, count: requests.count)
        var laterIndex: [UInt64: Int] = [:]
        for index in requests.indices.reversed() {
            let id = requests[index].id
            if let later = laterIndex[id] { next[index] = Int64(later) + 1 }
            laterIndex[id] = index
        }
        return next
    }

    private static func append(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
