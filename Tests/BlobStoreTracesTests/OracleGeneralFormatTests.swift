import Testing

@testable import BlobStoreTraces

/// libCacheSim's oracleGeneral records, read and written (OracleGeneralFormat).
@Suite struct OracleGeneralFormatTests {
    let requests = [
        TraceRequest(time: 0, id: 5, size: 100), TraceRequest(time: 1, id: 6, size: 0),
        TraceRequest(time: 2, id: 5, size: 100), TraceRequest(time: 3, id: UInt64.max, size: UInt32.max),
        TraceRequest(time: UInt64(UInt32.max), id: 6, size: 0),
    ]

    @Test func writtenTraceReadsBack() throws {
        let bytes = try OracleGeneralFormat.encode(requests)
        #expect(bytes.count == requests.count * 24)
        #expect(try OracleGeneralFormat.read(bytes) == requests)
        #expect(try OracleGeneralFormat.read([]) == [])
    }

    @Test func recordIsPackedLittleEndian() throws {
        let request = TraceRequest(time: 0x0102_0304, id: 0x1112_1314_1516_1718, size: 7)
        let bytes = try OracleGeneralFormat.encode([request])
        #expect(
            bytes == [
                0x04, 0x03, 0x02, 0x01, 0x18, 0x17, 0x16, 0x15, 0x14, 0x13, 0x12, 0x11, 7, 0, 0, 0,
                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            ])
    }

    /// As libCacheSim's converter writes it: the 1-based position of the next request for the
    /// same object, -1 for none.
    @Test func nextAccessIsOneBasedPositionOrMinusOne() throws {
        #expect(OracleGeneralFormat.nextAccessTimes(requests) == [3, 5, -1, -1, -1])
        let bytes = try OracleGeneralFormat.encode(requests)
        let written = requests.indices.map { index in
            bytes[index * 24 + 16..<index * 24 + 24].reversed().reduce(0) { $0 << 8 | Int64($1) }
        }
        #expect(written == [3, 5, -1, -1, -1])
    }

    @Test func nextAccessIsIgnoredOnRead() throws {
        var bytes = try OracleGeneralFormat.encode(requests)
        for index in 16..<24 { bytes[index] = 0x7f }
        #expect(try OracleGeneralFormat.read(bytes) == requests)
    }

    @Test func trailingBytesAreTruncation() throws {
        let bytes = try OracleGeneralFormat.encode(requests)
        for cut in [1, 23] {
            let error = #expect(throws: TraceError.self) { try OracleGeneralFormat.read(bytes.dropLast(cut)) }
            #expect(error?.code == .truncated)
            #expect(error?.record == 4)
            #expect(error?.message.contains("ends \(24 - cut) byte") == true)
        }
        let one = #expect(throws: TraceError.self) { try OracleGeneralFormat.read([0]) }
        #expect(one?.record == 0)
        #expect(one?.message.contains("ends 1 byte into record 0") == true)
    }

    @Test func timeOverThirtyTwoBitsIsOutOfRange() {
        let late = requests + [TraceRequest(time: UInt64(UInt32.max) + 1, id: 1, size: 1)]
        let error = #expect(throws: TraceError.self) { try OracleGeneralFormat.encode(late) }
        #expect(error?.code == .outOfRange)
        #expect(error?.record == 5)
    }
}
