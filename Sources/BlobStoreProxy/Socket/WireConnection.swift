import BlobStore
import BlobStoreHTTP
import Foundation
import Glibc

/// One TCP connection, client or origin, with a read buffer and a write buffer: heads are read
/// up to their empty line, bodies by framing. Its socket is never waited on by a thread: reads
/// and writes go as far as the socket allows at once, and a task that must wait suspends on the
/// connection's ``EventLoop`` (``EventLoop/ready(_:writable:until:)``), on whose thread the
/// connection is used (hence `@unchecked Sendable`: a client connection reaches its loop
/// through the loop's lock).
final class WireConnection: @unchecked Sendable {
    /// The socket.
    let fd: CInt
    /// The peer's address, for the access log.
    let peer: String
    // The buffers and their positions are read and changed several times per request by the
    // loop's thread alone: their exclusive access is checked when compiled, not again at run
    // time (docs/design.md, "Exclusivity checked when compiled").

    /// Received bytes not consumed yet: `buffer[start..<end]`; the buffer's count is its capacity.
    @exclusivity(unchecked) private var buffer = [UInt8](repeating: 0, count: WireConnection.readSize)
    @exclusivity(unchecked) private var start = 0
    @exclusivity(unchecked) private var end = 0
    /// Whether the peer ended its side of the stream.
    @exclusivity(unchecked) private(set) var reachedEnd = false
    /// Bytes after `start` already searched for the end of a head by ``bufferedHead(maxBytes:tooLarge:)``.
    @exclusivity(unchecked) private var searchedHead = 0
    /// When the first byte of the head being received arrived; `nil` between heads.
    @exclusivity(unchecked) private(set) var headBegan: MonotonicInstant?
    /// Since when the connection has waited for its next request in an ``EventLoop``.
    var waitingSince = MonotonicInstant.now
    /// Bytes written that the socket did not take yet, or that wait to go out with the next
    /// ones: `unsent[unsentStart...]`, sent by ``flush()`` or ``sendNow()``.
    @exclusivity(unchecked) private var unsent: [UInt8] = []
    @exclusivity(unchecked) private var unsentStart = 0
    /// The loop whose tasks use the connection.
    var loop: EventLoop?
    /// Whether the connection's socket is in its loop's `epoll` set (edge-triggered, until it
    /// closes).
    var isFollowed = false
    /// Whether a `recv` may find bytes: `false` once one found the socket empty or emptied it
    /// (took less than it asked for), until the loop reports an arrival (``reported(_:)``). With
    /// the socket edge-triggered, each arrival after that read is reported, so a read that would
    /// only find nothing is not tried.
    @exclusivity(unchecked) private(set) var mayHaveBytes = true
    /// Whether a `recv` that took less than it asked for emptied the socket: no longer once the
    /// loop reported an end of stream, an error or urgent data, after which a read returns the
    /// bytes before them and only the next one the rest (or stops at the urgent mark). Reads
    /// then go on until one finds the socket empty or at its end.
    private var shortReadEmpties = true
    /// How long a read waits for bytes, and a ``flush()`` for the peer to take some.
    let timeouts: (receive: Duration, send: Duration)
    /// The ``timeouts`` in nanoseconds, converted once: a deadline is made at each read.
    private let timeoutNanoseconds: (receive: Int64, send: Int64)
    /// Called once when the connection closes.
    private let onClose: (@Sendable () -> Void)?
    private var isClosed = false

    /// The most bytes one `recv` asks for.
    static let readSize = 64 << 10

    /// The connection on `fd` to `peer`, whose reads and flushes wait at most `timeouts`;
    /// `onClose` is called once when it closes.
    init(
        fd: CInt, peer: String, timeouts: (receive: Duration, send: Duration) = (.seconds(30), .seconds(30)),
        onClose: (@Sendable () -> Void)? = nil
    ) {
        self.fd = fd
        self.peer = peer
        self.timeouts = timeouts
        timeoutNanoseconds = (
            MonotonicInstant.nanoseconds(in: timeouts.receive), MonotonicInstant.nanoseconds(in: timeouts.send)
        )
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
    func readHead(maxBytes: Int, idle: Duration, complete: Duration, tooLarge: Int) async throws
        -> ArraySlice<UInt8>?
    {
        let began = MonotonicInstant.now
        while true {
            if let head = try bufferedHead(maxBytes: maxBytes, tooLarge: tooLarge) { return head }
            do {
                guard try await fill(until: headBegan.map { $0 + complete } ?? began + idle) else {
                    if headBegan == nil { return nil }
                    throw BlobStoreError(.network, "The connection ended inside a head.")
                }
            } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
                if headBegan == nil { return nil }
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
        try receive().map { $0 > 0 }
    }

    /// Up to `limit` body bytes: buffered ones first, else what one `recv` brings.
    ///
    /// - Returns: Empty at the end of the stream.
    /// - Throws: `network` when the connection fails or nothing arrives within the receive timeout.
    func readSome(limit: Int) async throws -> ArraySlice<UInt8> {
        if start == end {
            guard try await fill(until: .now.advanced(byNanoseconds: timeoutNanoseconds.receive)) else { return [] }
        }
        let stop = min(end, start + limit)
        let slice = buffer[start..<stop]
        start = stop
        return slice
    }

    /// One line (a chunk size, a trailer field), without its CRLF.
    ///
    /// - Throws: `network` when the line is longer than `maxBytes` or the stream ends first.
    func readLine(maxBytes: Int) async throws -> ArraySlice<UInt8> {
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
            guard try await fill(until: .now.advanced(byNanoseconds: timeoutNanoseconds.receive)) else {
                throw BlobStoreError(.network, "The connection ended inside a chunk line.")
            }
        }
    }

    /// Receives more bytes into the buffer, waiting on the connection's loop until `deadline`.
    ///
    /// - Returns: `false` at the end of the stream.
    /// - Throws: `network`, with `ETIMEDOUT` when nothing arrived by `deadline`.
    private func fill(until deadline: MonotonicInstant) async throws -> Bool {
        while true {
            if let received = try receive() { return received > 0 }
            try await onLoop().ready(self, writable: false, until: deadline)
        }
    }

    /// The loop to wait on.
    private func onLoop() throws -> EventLoop {
        guard let loop else { throw BlobStoreError(.network, "The connection has no event loop to wait on.") }
        return loop
    }

    /// Receives what has arrived into the buffer (``ProxySyscalls/receive(_:into:)``), without
    /// a system call when nothing arrived since the last read emptied the socket
    /// (``mayHaveBytes``).
    ///
    /// - Returns: The count received, 0 at the end of the stream; `nil` when nothing has arrived.
    private func receive() throws -> Int? {
        takeKeptReport()
        guard mayHaveBytes else { return nil }
        makeRoom()
        let old = end
        let asked = buffer.count - old
        let received = try buffer.withUnsafeMutableBytes { bytes in
            try ProxySyscalls.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: bytes[old...]))
        }
        guard let received else {
            mayHaveBytes = false
            return nil
        }
        end += received
        if received == 0 {
            reachedEnd = true
        } else if received < asked, shortReadEmpties {
            mayHaveBytes = false
        }
        return received
    }

    /// Notes what the loop reported of the socket: bytes to read, or their end, or an error.
    func reported(_ readiness: ProxySyscalls.Readiness) {
        guard readiness.readable else { return }
        mayHaveBytes = true
        if readiness.readsMayStopShort { shortReadEmpties = false }
    }

    /// Takes the report the loop kept for the socket while nobody waited for it, if any: taken
    /// even when bytes may be there, since it may say that a short read no longer empties the
    /// socket (an end of stream, urgent data).
    private func takeKeptReport() {
        if let loop, let readiness = loop.claimArrival(fd) { reported(readiness) }
    }

    /// Whether an idle connection is still open: no end of stream read or reported, and nothing
    /// reported since its last read emptied the socket. When that is not known, or when
    /// `peeking`, a peek that does not wait asks the kernel, which also sees an end of stream
    /// that has arrived but that the loop has not collected yet.
    func isOpenWhileIdle(peeking: Bool) -> Bool {
        guard !reachedEnd else { return false }
        takeKeptReport()
        if !peeking, !mayHaveBytes, isFollowed, shortReadEmpties { return true }
        guard shortReadEmpties, ProxySyscalls.isOpen(fd) else { return false }
        mayHaveBytes = false
        return true
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
        let (start, end) = (self.start, self.end)
        // Through the buffer's memory, from one LF to the next (`memchr`): a byte at a time
        // through the array, each access checked, was a tenth of a pass-through's parsing.
        let (found, stopped) = buffer.withUnsafeBufferPointer { buffer -> ((Int, Int)?, Int) in
            var index = start + searched
            guard let base = buffer.baseAddress else { return (nil, index) }
            while index < end {
                guard let lf = memchr(base + index, 0x0A, end - index) else { return (nil, end) }
                index = base.distance(to: lf.assumingMemoryBound(to: UInt8.self))
                // LF LF or LF CR LF ends the head.
                if index + 2 >= end, index + 1 < end, buffer[index + 1] == 0x0D {
                    return (nil, index)  // LF CR: wait for the byte after
                }
                if index + 1 < end, buffer[index + 1] == 0x0A { return ((index + 1, index + 2), index) }
                if index + 2 < end, buffer[index + 1] == 0x0D, buffer[index + 2] == 0x0A {
                    return ((index + 1, index + 3), index)
                }
                if index + 1 >= end { return (nil, index) }  // LF last: wait for what follows
                index += 1
            }
            return (nil, index)
        }
        if let found { return found }
        searched = stopped - start
        return nil
    }

    // MARK: - Writing

    /// Writes `bytes` without waiting: while the bytes waiting to go out stay within
    /// ``coalescedBytes`` they are only kept, so that a head and a small body, or the pieces of
    /// one answer, go out in one system call at the next ``sendNow()`` or ``flush()``; beyond,
    /// what waits and `bytes` are sent at once as far as the socket takes them, and the rest is
    /// kept; `sendingNow`, they are sent at once whatever their size. A writer that must not get
    /// ahead of its peer flushes after each write.
    ///
    /// - Throws: `network` when the peer is gone.
    func write(_ bytes: some ContiguousBytes, sendingNow: Bool = false) throws {
        try bytes.withUnsafeBytes { bytes in
            let waiting = unsent.count - unsentStart
            guard sendingNow || waiting + bytes.count > Self.coalescedBytes else {
                return unsent.append(contentsOf: bytes)
            }
            let sent = try unsent.withUnsafeBytes { kept in
                try ProxySyscalls.send(fd, UnsafeRawBufferPointer(rebasing: kept[unsentStart...]), bytes)
            }
            if sent < waiting {
                unsentStart += sent
                unsent.append(contentsOf: bytes)
            } else {
                forgetUnsent()
                unsent.append(contentsOf: bytes[(sent - waiting)...])
            }
        }
    }

    /// Writes `head` and then `body`, as two ``write(_:)``s do, but sends them at once, `body`
    /// from where it is, unless another request is buffered behind this one (whose answer then
    /// shares the system call): a stored body in memory is not copied into the connection on its
    /// way.
    ///
    /// - Throws: `network` when the peer is gone.
    func write(_ head: [UInt8], then body: some ContiguousBytes) throws {
        try write(head)
        try write(body, sendingNow: !hasBufferedBytes)
    }

    /// The most written bytes kept to go out with the next ones.
    static let coalescedBytes = 16 << 10

    /// Whether written bytes wait for ``sendNow()`` or ``flush()``.
    var hasUnsent: Bool { unsentStart < unsent.count }

    /// Sends what the socket takes at once of the bytes written, without waiting.
    ///
    /// - Returns: Whether they all went.
    /// - Throws: `network` when the peer is gone.
    @discardableResult
    func sendNow() throws -> Bool {
        guard hasUnsent else { return true }
        let sent = try unsent.withUnsafeBytes { bytes in
            try ProxySyscalls.send(fd, UnsafeRawBufferPointer(rebasing: bytes[unsentStart...]))
        }
        unsentStart += sent
        guard !hasUnsent else { return false }
        forgetUnsent()
        return true
    }

    /// Sends the bytes written, waiting on the connection's loop while the peer does not read
    /// (at most the send timeout for each wait).
    ///
    /// - Throws: `network` when the peer is gone or stopped reading (`ETIMEDOUT`).
    func flush() async throws {
        while try !sendNow() { try await writable() }
    }

    /// Waits on the connection's loop until the peer has taken some of what was sent, at most
    /// the send timeout.
    ///
    /// - Throws: `network` with `ETIMEDOUT` when the peer stopped reading.
    private func writable() async throws {
        do {
            try await onLoop().ready(self, writable: true, until: .now.advanced(byNanoseconds: timeoutNanoseconds.send))
        } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
            throw BlobStoreError(.network, "The peer stopped reading.", errno: ETIMEDOUT)
        }
    }

    /// Sends the bytes written, then `range` of the file `file` straight from the page cache
    /// (`sendfile`), waiting on the connection's loop while the peer does not read: a large
    /// stored body goes out without being read into memory.
    ///
    /// - Throws: `network` when the peer is gone or stopped reading (`ETIMEDOUT`); `io` when the
    ///   file ends before `range` does.
    func sendFile(_ file: CInt, _ range: Range<Int>) async throws {
        try await flush()
        var offset = off_t(range.lowerBound)
        var left = range.count
        while left > 0 {
            guard let sent = try ProxySyscalls.sendFile(fd, from: file, offset: &offset, count: min(left, 1 << 30))
            else {
                try await writable()
                continue
            }
            guard sent > 0 else { throw BlobStoreError(.io, "The stored body ended \(left) bytes early.") }
            left -= sent
        }
    }

    /// Forgets the bytes written that were not sent (to a peer that is gone).
    func discardUnsent() {
        forgetUnsent()
    }

    /// Empties the bytes waiting, keeping the buffer's memory when it is small: an idle
    /// connection holds no large buffer.
    private func forgetUnsent() {
        unsentStart = 0
        if unsent.capacity > 4 * Self.coalescedBytes { unsent = [] } else { unsent.removeAll(keepingCapacity: true) }
    }
}

extension WireConnection {
    /// Waits, on the connection's loop, for the connection begun on its socket
    /// (``ProxySyscalls/startConnecting(host:port:)``) to be made.
    ///
    /// - Throws: `network` when it fails, or is not made within `timeout` (`ETIMEDOUT`).
    func connected(host: String, port: UInt16, within timeout: Duration) async throws {
        do {
            try await onLoop().ready(self, writable: true, until: .now + timeout)
        } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
            throw BlobStoreError(.network, "Cannot connect to \(host):\(port) in \(timeout).", errno: ETIMEDOUT)
        }
        try ProxySyscalls.connectionError(fd, host: host, port: port)
    }
}
