import Testing

@testable import BlobStoreTraces

/// `time,id,size` traces with a header, read and written (CSVTraceFormat).
@Suite struct CSVTraceFormatTests {
    let requests = [
        TraceRequest(time: 0, id: 42, size: 4096), TraceRequest(time: 1, id: 7, size: 0),
        TraceRequest(time: UInt64.max, id: UInt64.max, size: UInt32.max),
    ]

    private func read(_ text: String) throws(TraceError) -> [TraceRequest] {
        try CSVTraceFormat.read(Array(text.utf8))
    }

    /// The error reading `text` throws.
    private func failure(_ text: String) -> TraceError? {
        #expect(throws: TraceError.self) { try read(text) }
    }

    @Test func writtenTraceReadsBack() throws {
        let bytes = CSVTraceFormat.encode(requests)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "time,id,size\n0,42,4096\n1,7,0\n\(UInt64.max),\(UInt64.max),\(UInt32.max)\n")
        #expect(try CSVTraceFormat.read(bytes) == requests)
        #expect(try CSVTraceFormat.read(CSVTraceFormat.encode([])) == [])
    }

    @Test func crlfLinesAndNoFinalLineBreakRead() throws {
        #expect(try read("time,id,size\r\n0,42,4096\r\n1,7,0\r\n") == Array(requests.prefix(2)))
        #expect(try read("t,obj,bytes\n0,42,4096\n1,7,0") == Array(requests.prefix(2)))
        #expect(try read("Time,ID,Size\n00,042,04096\n") == [requests[0]])
    }

    @Test func sizeZeroIsKept() throws {
        #expect(try read("time,id,size\n3,9,0\n") == [TraceRequest(time: 3, id: 9, size: 0)])
    }

    @Test func emptyTraceHasNoHeader() {
        #expect(failure("")?.code == .malformed)
        #expect(failure("\n")?.line == 1)
    }

    @Test func requestOnFirstLineIsMissingHeader() {
        let error = failure("0,42,4096\n1,7,0\n")
        #expect(error?.code == .malformed)
        #expect(error?.line == 1)
        #expect(error?.message.contains("time,id,size") == true)
    }

    @Test func wrongFieldCountNamesTheLine() {
        for line in ["0,42", "0,42,4096,1", "", "0;42;4096"] {
            let error = failure("time,id,size\n0,1,2\n\(line)\n3,4,5\n")
            #expect(error?.code == .malformed, "\(line)")
            #expect(error?.line == 3, "\(line)")
        }
        #expect(failure("time,id,size\n0,1,2\n\n")?.line == 3)
    }

    @Test func nonDecimalFieldIsMalformed() {
        for line in ["0,abc,1", "0,-1,1", "0, 1,1", "0,0x10,1", "x,1,1", "0,1,1.5", "0,,1", "0,1,+1"] {
            let error = failure("time,id,size\n\(line)\n")
            #expect(error?.code == .malformed, "\(line)")
            #expect(error?.line == 2, "\(line)")
        }
    }

    @Test func idOverSixtyFourBitsIsOutOfRange() {
        let error = failure("time,id,size\n0,18446744073709551616,1\n")
        #expect(error?.code == .outOfRange)
        #expect(error?.line == 2)
        #expect(error?.message.contains("object id") == true)
    }

    @Test func sizeOverThirtyTwoBitsIsOutOfRange() {
        let error = failure("time,id,size\n0,1,1\n1,2,4294967296\n")
        #expect(error?.code == .outOfRange)
        #expect(error?.line == 3)
        #expect(error?.message.contains("4294967296") == true)
    }
}
