import Testing

@testable import BlobStoreProxy

/// The cursor an access log line is written with: the same bytes as an array's appends, and
/// nothing past its room.
@Suite("Caching proxy: the byte cursor of access log lines")
struct ByteCursorTests {
    /// The bytes `write` puts through a cursor with `room` bytes, and whether it overflowed.
    private func written(room: Int, _ write: (inout ByteCursor) -> Void) -> (bytes: [UInt8], overflowed: Bool) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: room + 8, alignment: 1)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0xEE)
        let start = buffer.baseAddress!
        var cursor = ByteCursor(from: start, to: start + room)
        write(&cursor)
        // The bytes past the room are untouched.
        #expect(buffer[room...].allSatisfy { $0 == 0xEE })
        return (Array(buffer[..<(cursor.position - start)]), cursor.overflowed)
    }

    @Test("Decimals, strings, literals and bytes are written as an array's appends write them")
    func writesAsAnArrayDoes() {
        let numbers = [0, 7, 9, 10, 99, 100, 4096, -1, -42, 1_000_000_007, Int.max, Int.min]
        let texts = ["", "GET", "127.0.0.1", "/a/long/target?with=query&and=é", String(repeating: "x", count: 300)]
        func pieces<Sink: ByteSink>(_ sink: inout Sink) {
            for number in numbers {
                sink.append(decimal: number)
                sink.append(byte: UInt8(ascii: " "))
            }
            for text in texts { sink.append(text) }
            sink.append(literal: "] \"")
            [UInt8]("raw".utf8).withUnsafeBytes { sink.append(bytes: $0) }
        }
        var array: [UInt8] = []
        pieces(&array)
        #expect(String(decoding: array, as: UTF8.self).hasPrefix("0 7 9 10 99 100 4096 -1 -42 1000000007 "))
        let (bytes, overflowed) = written(room: 1024) { pieces(&$0) }
        #expect(!overflowed)
        #expect(bytes == array)
    }

    @Test("A piece that does not fit marks the cursor overflowed and writes nothing more")
    func overflowStops() {
        let exact = written(room: 5) { $0.append("12345") }
        #expect(exact.bytes == Array("12345".utf8) && !exact.overflowed)
        let decimal = written(room: 4) {
            $0.append(literal: "ab")
            $0.append(decimal: -123)
            $0.append(byte: UInt8(ascii: "z"))
        }
        #expect(decimal.bytes == Array("ab".utf8) && decimal.overflowed)
        let byte = written(room: 1) {
            $0.append(byte: 1)
            $0.append(byte: 2)
            $0.append(literal: "")
        }
        #expect(byte.bytes == [1] && byte.overflowed)
    }
}
