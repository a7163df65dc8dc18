import BlobStore
import Foundation

/// A blocking TCP client with exact timeouts: the name resolution and the connect are bounded by
/// their timeouts, and every read and write of an operation by that operation's deadline
/// (``startOperation(timeout:)``).
///
/// Not thread-safe: one operation uses it at a time. It is `@unchecked Sendable` only so that a
/// pool can hand it from one operation to the next; the pool's mutex orders those hand-overs.
final class TCPConnection: @unchecked Sendable {
    /// The server, without credentials, for messages.
    let server: String
    private var fd: SocketDescriptor?
    private var deadline: ContinuousClock.Instant
    private var operationTimeout: Duration
    /// Received bytes not consumed yet: `buffer[start...]`.
    private var buffer: [UInt8] = []
    private var start = 0
    /// Whether a byte arrived since ``startOperation(timeout:)``.
    private var receivedInOperation = false
    /// Whether the server closed its side (a `recv` returned 0).
    private var closedByPeer = false
    /// What one `recv` fills, before its bytes are appended to `buffer`.
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)

    /// Resolves `host` within the name resolution timeout, then connects to it within the
    /// connect timeout.
    ///
    /// - Throws: ``BlobStoreError/Code/remote`` when it cannot resolve or connect in time.
    init(
        host: String, port: UInt16, timeouts: RemoteTimeouts, resolver: NameResolver = .system, server: String
    ) throws {
        self.server = server
        fd = try SocketSyscalls.connect(
            host: host, port: port, timeout: timeouts.connect, resolutionTimeout: timeouts.nameResolution,
            resolver: resolver, server: server)
        // No operation yet: reads and writes before startOperation(timeout:) time out at once.
        operationTimeout = .zero
        deadline = ContinuousClock.now
    }

    deinit {
        close()
        chunk.deallocate()
    }

    /// Closes the socket; later calls throw.
    func close() {
        if let fd { SocketSyscalls.close(fd) }
        fd = nil
    }

    /// Every read and write from now on must finish within `timeout` from now.
    func startOperation(timeout: Duration) {
        operationTimeout = timeout
        deadline = ContinuousClock.now + timeout
        receivedInOperation = false
    }

    /// Whether `error`, thrown during the current operation, shows a connection the server had
    /// already given up (reset, broken pipe, end of stream) before a single byte of the reply
    /// arrived: the request was not processed, and may be sent again on a new connection. Any
    /// other failure — a timeout, a protocol error, a reply cut short — may not.
    func failedBeforeReply(_ error: any Error) -> Bool {
        guard !receivedInOperation else { return false }
        if closedByPeer { return true }
        guard let code = (error as? BlobStoreError)?.errno else { return false }
        return code == EPIPE || code == ECONNRESET
    }

    // MARK: - Writing

    /// Sends all of `bytes` before the deadline.
    func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let fd = try wait(for: Int16(POLLOUT))
                offset += try SocketSyscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]), server: server)
            }
        }
    }

    // MARK: - Reading

    /// The bytes up to the next CRLF, without it.
    ///
    /// - Parameter maximum: The longest line accepted; a longer one is a protocol error.
    func readLine(maximum: Int) throws -> [UInt8] {
        var searched = 0  // bytes after `start` known to hold no CRLF; `fill()` may move `start`
        while true {
            if let end = findCRLF(from: start + searched) {
                let line = Array(buffer[start..<end])
                start = end + 2
                releaseIfDrained()
                return line
            }
            searched = max(0, buffer.count - start - 1)
            guard buffer.count - start <= maximum else {
                throw BlobStoreError.remote(server, "a reply line is longer than \(maximum) bytes.")
            }
            guard try fill() else { throw endOfStream() }
        }
    }

    /// Exactly `count` bytes.
    func readExactly(_ count: Int) throws -> Data {
        while buffer.count - start < count {
            guard try fill() else { throw endOfStream() }
        }
        let data = Data(buffer[start..<start + count])
        start += count
        releaseIfDrained()
        return data
    }

    /// Everything until the server closes the connection.
    ///
    /// - Parameter maximum: The most bytes accepted; more is a protocol error.
    func readToEnd(maximum: Int) throws -> Data {
        while try fill() {
            guard buffer.count - start <= maximum else {
                throw BlobStoreError.remoteTooLarge(server, size: buffer.count - start, maximum: maximum, orMore: true)
            }
        }
        let data = Data(buffer[start...])
        start = buffer.count
        releaseIfDrained()
        return data
    }

    /// The bytes the receive buffer holds room for (tests check that it shrinks).
    var bufferCapacity: Int { buffer.capacity }

    /// Empties the buffer once everything in it was consumed, giving its memory back when it
    /// grew past 1 MiB (a large value), so that a pooled connection does not keep it.
    private func releaseIfDrained() {
        guard start == buffer.count else { return }
        start = 0
        if buffer.capacity > 1 << 20 {
            buffer = []
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Reads more bytes into the buffer.
    ///
    /// - Returns: `false` at the end of the stream.
    private func fill() throws -> Bool {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        while true {
            let fd = try wait(for: Int16(POLLIN))
            guard let received = try SocketSyscalls.receive(fd, into: chunk, server: server) else { continue }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<received]))
            if received > 0 { receivedInOperation = true } else { closedByPeer = true }
            return received > 0
        }
    }

    private func findCRLF(from index: Int) -> Int? {
        var index = index
        while index + 1 < buffer.count {
            if buffer[index] == 13, buffer[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Waits for the socket to be ready, or throws when the deadline passes or it is closed.
    ///
    /// - Returns: The socket.
    private func wait(for events: Int16) throws -> SocketDescriptor {
        guard let fd else { throw BlobStoreError.remote(server, "the connection is closed.") }
        let remaining = SocketSyscalls.milliseconds(until: deadline)
        guard remaining > 0, try SocketSyscalls.poll(fd, events: events, milliseconds: remaining, server: server) else {
            throw BlobStoreError.remote(server, "no answer within \(operationTimeout).", errno: ETIMEDOUT)
        }
        return fd
    }

    private func endOfStream() -> BlobStoreError {
        BlobStoreError.remote(server, "the server closed the connection in the middle of a reply.")
    }
}
