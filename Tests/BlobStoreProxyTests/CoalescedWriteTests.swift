import Foundation
import Glibc
import Testing

@testable import BlobStoreProxy

/// A connection's writes: small ones wait to go out together, large ones go at once, and the
/// bytes arrive whole and in order either way.
@Suite("Caching proxy: coalesced writes")
struct CoalescedWriteTests {
    /// A connected pair of stream sockets: the connection's end and the peer's.
    private func pair() throws -> (WireConnection, CInt) {
        var fds: [CInt] = [0, 0]
        try #require(socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue), 0, &fds) == 0)
        return (WireConnection(fd: fds[0], peer: "test"), fds[1])
    }

    /// What has arrived at `fd`, without waiting.
    private func arrived(_ fd: CInt) -> [UInt8] {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = recv(fd, &buffer, buffer.count, CInt(MSG_DONTWAIT))
            guard count > 0 else { return bytes }
            bytes += buffer[..<count]
        }
    }

    @Test("Small writes wait for sendNow and then arrive together")
    func smallWritesWait() throws {
        let (connection, peer) = try pair()
        defer { close(peer) }
        try connection.write(Array("head\r\n\r\n".utf8))
        try connection.write(Array("body".utf8))
        #expect(connection.hasUnsent)
        #expect(arrived(peer).isEmpty)
        #expect(try connection.sendNow())
        #expect(!connection.hasUnsent)
        #expect(String(decoding: arrived(peer), as: UTF8.self) == "head\r\n\r\nbody")
    }

    @Test("A write past the coalescing bound sends what waited and itself at once, in order")
    func largeWriteSendsAll() throws {
        let (connection, peer) = try pair()
        defer { close(peer) }
        let large = (0..<(WireConnection.coalescedBytes + 1)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        try connection.write(Array("head".utf8))
        try connection.write(large)
        var received = arrived(peer)
        // What the socket did not take at once waits for sendNow; the peer reads as it goes.
        while connection.hasUnsent {
            try connection.sendNow()
            received += arrived(peer)
        }
        #expect(received == Array("head".utf8) + large)
    }
}
