import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc

/// One TCP connection, client or origin, with a read buffer: heads are read up to their empty
/// line, bodies by framing. Used by one thread at a time: an idle origin connection passes
/// between threads only through ``OriginConnections``, an idle client connection through an
/// ``EventLoop``, each under its lock (hence `@unchecked Sendable`).
final class WireConnection: @unchecked Sendable {
    /// The socket.
    let fd: CInt
    /// The peer's address, for the access log.
    let peer: String
    /// Received bytes not consumed yet: `buffer[start..<end]`; the buffer's count is its capacity.
    private var buffer = [UInt8](repeating: 0, count: WireConnection.readSize)
    private var start = 0
    private var end = 0
    /// Whether the peer ended its side of the stream.
    private(set) var reachedEnd = false
    /// Bytes after `start` already searched for the end of a head by ``bufferedHead(maxBytes:tooLarge:)``.
    private var searchedHead = 0
    /// When the first byte of the head being received arrived; `nil` between heads.
    private(set) var headBegan: ContinuousClock.Instant?
    /// Since when the connection has waited for its next request in an ``EventLoop``.
    var waitingSince = ContinuousClock.now
    /// Whether ``write(_:)`` sends only what the socket takes at once and keeps the rest in
    /// ``unsent`` (on an event loop's thread, which must not wait for one client).
    var sendsWithoutWaiting = false
    /// Bytes written while ``sendsWithoutWaiting`` that the socket did not take yet.
    private(set) var unsent: [UInt8] = []
    /// Called once when the connection closes.
    private let onClose: (@Sendable () -> Void)?
    private var isClosed = false

    /// The most bytes one `recv` asks for.
    static let readSize = 64 << 10

    /// The connection on `fd` to `peer`; `onClose` is called once when it closes.
    init(fd: CInt, peer: String, onClose: (@Sendable () -> Void)? = nil) {
        self.fd = fd
        self.peer = peer
        self.onClose = onClose
    }

    deinit {
        close()
    }

    /// Closes the socket (once; later calls do nothing).
    func close() {
        guard !isClosed else { return }
        isClosed = true
        ProxySyscalls.close(fd)
        onClose?()
    }

    /// Whether bytes are buffered that no read has consumed (a pipelined request).
    var hasBufferedBytes: Bool { start < end }

    // MARK: - Reading

    /// The next head: the bytes before the empty line that ends it, the empty line consumed.
    /// Empty lines before a request line are skipped (RFC 9112 §2.2).
    ///
    /// - Parameters:
    ///   - maxBytes: The longest head accepted.
    ///   - idle: How long to wait for its first byte.
    ///   - complete: How long the whole head may take once it has begun.
    ///   - tooLarge: The status for a head over `maxBytes` (431 for a request, 502 for a response).
    /// - Returns: `nil` when the peer closed the connection (or stayed idle past `idle`) before
    ///   sending a byte of it.
    /// - Throws: ``Rejection`` (`tooLarge`, or 408 when the head does not complete in time);
    ///   `network` when the connection fails or ends inside the head.
    func readHead(maxBytes: Int, idle: Duration, complete: Duration, tooLarge: Int) throws -> ArraySlice<UInt8>? {
        let began = ContinuousClock.now
        while true {
            if let head = try bufferedHead(maxBytes: maxBytes, tooLarge: tooLarge) { return head }
            do {
                guard try fill() else {
                    if headBegan == nil { return nil }
                    throw BlobStoreError(.network, "The connection ended inside a head.")
                }
            } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
                if headBegan == nil, ContinuousClock.now - began >= idle { return nil }
            }
            if let headBegan, ContinuousClock.now - headBegan >= complete {
                throw Rejection(408, "the head did not arrive in \(complete)")
            }
        }
    }

    /// The next head if it is buffered whole (the empty line consumed), else `nil`: what an
    /// ``EventLoop`` asks after ``receiveWithoutWaiting()``. Empty lines before it are skipped.
    ///
    /// - Throws: ``Rejection`` with `tooLarge` when more than `maxBytes` are buffered without
    ///   the end of the head.
    func bufferedHead(maxBytes: Int, tooLarge: Int) throws(Rejection) -> ArraySlice<UInt8>? {
        if headBegan == nil {
            while start < end, buffer[start] == 0x0D || buffer[start] == 0x0A { start += 1 }
            guard start < end else { return nil }
            headBegan = .now
            searchedHead = 0
        }
        guard let found = headEnd(searched: &searchedHead) else {
            if end - start > maxBytes { throw Rejection(tooLarge, "the head is larger than \(maxBytes) bytes") }
            return nil
        }
        guard found.headEnd - start <= maxBytes else {
            throw Rejection(tooLarge, "the head is larger than \(maxBytes) bytes")
        }
        let head = buffer[start..<found.headEnd]
        start = found.next
        headBegan = nil
        return head
    }

    /// Receives what has arrived without waiting.
    ///
    /// - Returns: `true` when bytes arrived, `false` at the end of the stream, `nil` when
    ///   nothing has.
    /// - Throws: `network` when the connection broke.
    func receiveWithoutWaiting() throws -> Bool? {
        try receive(waiting: false).map { $0 > 0 }
    }

    /// Up to `limit` body bytes: buffered ones first, else what one `recv` brings.
    ///
    /// - Returns: Empty at the end of the stream.
    func readSome(limit: Int) throws -> ArraySlice<UInt8> {
        if start == end {
            guard try fill() else { return [] }
        }
        let stop = min(end, start + limit)
        let slice = buffer[start..<stop]
        start = stop
        return slice
    }

    /// One line (a chunk size, a trailer field), without its CRLF.
    ///
    /// - Throws: `network` when the line is longer than `maxBytes` or the stream ends first.
    func readLine(maxBytes: Int) throws -> ArraySlice<UInt8> {
        var searched = 0
        while true {
            if let newline = buffer[(start + searched)..<end].firstIndex(of: 0x0A) {
                var lineEnd = newline
                if lineEnd > start, buffer[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                let line = buffer[start..<lineEnd]
                start = newline + 1
                return line
            }
            searched = end - start
            guard end - start <= maxBytes else {
                throw BlobStoreError(.network, "A chunk line is longer than \(maxBytes) bytes.")
            }
            guard try fill() else { throw BlobStoreError(.network, "The connection ended inside a chunk line.") }
        }
    }

    /// Exactly `count` bytes, discarded (the CRLF after a chunk).
    func skip(_ count: Int) throws {
        var left = count
        while left > 0 {
            let bytes = try readSome(limit: left)
            guard !bytes.isEmpty else { throw BlobStoreError(.network, "The connection ended inside a body.") }
            left -= bytes.count
        }
    }

    /// Receives more bytes into the buffer.
    ///
    /// - Returns: `false` at the end of the stream.
    private func fill() throws -> Bool {
        try receive(waiting: true)! > 0
    }

    /// Receives into the buffer (``ProxySyscalls/receive(_:into:waiting:)``).
    ///
    /// - Returns: The count received, 0 at the end of the stream; `nil` when nothing has arrived
    ///   and the call was not to wait.
    private func receive(waiting: Bool) throws -> Int? {
        makeRoom()
        let old = end
        let received = try buffer.withUnsafeMutableBytes { bytes in
            try ProxySyscalls.receive(
                fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[old...]), waiting: waiting)
        }
        guard let received else { return nil }
        end += received
        if received == 0 { reachedEnd = true }
        return received
    }

    /// Makes room after the buffered bytes for a receive of at least a quarter of ``readSize``.
    private func makeRoom() {
        if start == end {
            (start, end) = (0, 0)
        } else if start > 0, buffer.count - end < Self.readSize / 4 {
            // Move the unconsumed bytes to the front rather than grow.
            buffer.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: end - start)
            }
            (start, end) = (0, end - start)
        }
        if buffer.count - end < Self.readSize / 4 {
            buffer.append(contentsOf: repeatElement(0, count: buffer.count))
        }
    }

    /// Where the head that starts at `start` ends (the end of its fields, and where the next
    /// message begins), searching past the `searched` bytes already searched (advanced, so that
    /// a head arriving slowly is not searched again from its start).
    private func headEnd(searched: inout Int) -> (headEnd: Int, next: Int)? {
        var index = start + searched
        while index < end {
            if buffer[index] == 0x0A {
                // LF LF or LF CR LF ends the head.
                if index + 2 >= end, index + 1 < end, buffer[index + 1] == 0x0D {
                    break  // LF CR: wait for the byte after
                }
                if index + 1 < end, buffer[index + 1] == 0x0A { return (index + 1, index + 2) }
                if index + 2 < end, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                    return (index + 1, index + 3)
                }
                if index + 1 >= end { break }  // LF last: wait for what follows
            }
            index += 1
        }
        searched = index - start
        return nil
    }

    // MARK: - Writing

    /// Sends `bytes`, waiting up to the send timeout while the peer does not read, or, while
    /// ``sendsWithoutWaiting``, keeping in ``unsent`` what the socket does not take at once.
    ///
    /// - Throws: `network` when the peer is gone or stopped reading.
    func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { bytes in
            guard sendsWithoutWaiting else {
                try ProxySyscalls.send(fd, bytes, waiting: true)
                return
            }
            let sent = unsent.isEmpty ? try ProxySyscalls.send(fd, bytes, waiting: false) : 0
            unsent.append(contentsOf: bytes[sent...])
        }
    }

    /// Sends ``unsent``, waiting up to the send timeout while the peer does not read.
    ///
    /// - Throws: `network` when the peer is gone or stopped reading.
    func flushUnsent() throws {
        let bytes = unsent
        unsent = []
        _ = try bytes.withUnsafeBytes { try ProxySyscalls.send(fd, $0, waiting: true) }
    }
}
