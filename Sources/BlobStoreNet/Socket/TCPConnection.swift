import BlobStore
import Foundation

/// A blocking TCP client with exact timeouts, with or without TLS: the name resolution and the
/// connect are bounded by their timeouts, the TLS handshake by the operation timeout, and every
/// read and write of an operation by that operation's deadline (``startOperation(timeout:)``).
///
/// With TLS, a ``TLSSession`` encrypts and decrypts in memory, and the ciphertext goes over the
/// same non-blocking socket calls and waits as plain bytes do.
///
/// Not thread-safe: one operation uses it at a time. It is `@unchecked Sendable` only so that a
/// pool can hand it from one operation to the next; the pool's mutex orders those hand-overs.
package final class TCPConnection: @unchecked Sendable {
    /// The server, without credentials, for messages.
    package let server: NetworkPeer
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
    /// Whether a TLS connection's stream ended without the server's `close_notify`: what was read
    /// to the end of the stream may have been cut short (a dropped connection, an injected FIN),
    /// which only TLS can tell from a complete one.
    package private(set) var endedWithoutCloseNotify = false
    /// What one `recv` (or, with TLS, one decryption) fills, before its bytes are appended to
    /// `buffer`.
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 1)
    /// The TLS session, or `nil` for plain TCP.
    private let tls: TLSSession?
    /// With TLS, the ciphertext of one `recv` or one `send`; empty without.
    private let ciphertext: UnsafeMutableRawBufferPointer

    /// Resolves `host` within the name resolution timeout, then connects to it within the
    /// connect timeout and, with `tls`, completes the TLS handshake within the operation timeout,
    /// checking that the server's certificate names `host`.
    ///
    /// - Throws: the peer's code (``NetworkPeer``) when it cannot resolve or connect in time, or the
    ///   handshake fails (a refused certificate, a server that does not speak TLS) or times out.
    package init(
        host: String, port: UInt16, timeouts: ConnectTimeouts, resolver: NameResolver = .system, server: NetworkPeer,
        tls context: TLSContext? = nil
    ) throws {
        self.server = server
        tls = try context.map { try TLSSession($0, host: host, server: server) }
        ciphertext = .allocate(byteCount: tls == nil ? 0 : 64 << 10, alignment: 1)
        // No operation yet: reads and writes before startOperation(timeout:) time out at once.
        operationTimeout = .zero
        deadline = ContinuousClock.now
        fd = try SocketSyscalls.connect(
            host: host, port: port, timeout: timeouts.connect, resolutionTimeout: timeouts.nameResolution,
            resolver: resolver, server: server)
        if let tls { try handshake(tls, timeout: timeouts.handshake) }
    }

    /// A plain connection over `fd`, already connected and non-blocking (one end of a socket
    /// pair: the fuzz harness of the HTTP client's reply reader), which it closes.
    package init(connected fd: SocketDescriptor, server: NetworkPeer) {
        self.server = server
        tls = nil
        ciphertext = .allocate(byteCount: 0, alignment: 1)
        operationTimeout = .zero
        deadline = ContinuousClock.now
        self.fd = fd
    }

    deinit {
        close()
        chunk.deallocate()
        ciphertext.deallocate()
    }

    /// Closes the socket; later calls throw.
    package func close() {
        if let fd { SocketSyscalls.close(fd) }
        fd = nil
    }

    /// Every read and write from now on must finish within `timeout` from now.
    package func startOperation(timeout: Duration) {
        operationTimeout = timeout
        deadline = ContinuousClock.now + timeout
        receivedInOperation = false
    }

    /// Moves the deadline to the operation's timeout from now: for a long body, whose timeout
    /// bounds each wait for the next bytes rather than the whole.
    package func extendDeadline() {
        deadline = ContinuousClock.now + operationTimeout
    }

    /// Whether `error`, thrown during the current operation, shows a connection the server had
    /// already given up (reset, broken pipe, end of stream) before a single byte of the reply
    /// arrived: the request was not processed, and may be sent again on a new connection. Any
    /// other failure — a timeout, a protocol error, a reply cut short — may not.
    package func failedBeforeReply(_ error: any Error) -> Bool {
        guard !receivedInOperation else { return false }
        if closedByPeer { return true }
        guard let code = (error as? BlobStoreError)?.errno else { return false }
        return code == EPIPE || code == ECONNRESET
    }

    // MARK: - Writing

    /// Sends all of `bytes` before the deadline.
    package func write(_ bytes: some ContiguousBytes) throws {
        try bytes.withUnsafeBytes { raw in
            guard let tls else { return try send(raw) }
            var offset = 0
            while offset < raw.count {
                // 64 KiB at a time, so that the ciphertext waiting to be sent stays small.
                let piece = UnsafeRawBufferPointer(rebasing: raw[offset..<min(raw.count, offset + (64 << 10))])
                switch try tls.write(piece) {
                case .done(let count): offset += count
                case .needsInput: guard try receiveCiphertext(tls) else { throw endOfStream() }
                case .closed: throw endOfStream()
                }
                try sendCiphertext(tls)
            }
        }
    }

    /// Sends all of `raw` on the socket before the deadline.
    private func send(_ raw: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < raw.count {
            let fd = try wait(for: Int16(POLLOUT))
            offset += try SocketSyscalls.send(fd, UnsafeRawBufferPointer(rebasing: raw[offset...]), server: server)
        }
    }

    // MARK: - TLS

    /// Runs the handshake to its end within `timeout`.
    private func handshake(_ tls: TLSSession, timeout: Duration) throws {
        startOperation(timeout: timeout)
        defer { startOperation(timeout: .zero) }
        do {
            while try !tls.handshake() {
                try sendCiphertext(tls)
                guard try receiveCiphertext(tls) else {
                    throw server.failure(
                        "the server closed the connection during the TLS handshake. Check that it speaks TLS on "
                            + "this port.")
                }
            }
            try sendCiphertext(tls)  // the handshake's last message
        } catch let error as BlobStoreError where error.errno == ETIMEDOUT {
            throw server.failure("the TLS handshake took longer than \(timeout).", errno: ETIMEDOUT)
        }
    }

    /// Sends the ciphertext the session has for the server.
    private func sendCiphertext(_ tls: TLSSession) throws {
        while case let count = tls.takeOutput(into: ciphertext), count > 0 {
            try send(UnsafeRawBufferPointer(rebasing: ciphertext[..<count]))
        }
    }

    /// Receives ciphertext and hands it to the session.
    ///
    /// - Returns: `false` at the end of the stream.
    private func receiveCiphertext(_ tls: TLSSession) throws -> Bool {
        while true {
            let fd = try wait(for: Int16(POLLIN))
            guard let received = try SocketSyscalls.receive(fd, into: ciphertext, server: server) else { continue }
            guard received > 0 else { return false }
            tls.feed(UnsafeRawBufferPointer(rebasing: ciphertext[..<received]))
            return true
        }
    }

    // MARK: - Reading

    /// The bytes up to the next CRLF, without it.
    ///
    /// - Parameter maximum: The longest line accepted; a longer one is a protocol error.
    package func readLine(maximum: Int) throws -> [UInt8] {
        var searched = 0  // bytes after `start` known to hold no CRLF; `fill()` may move `start`
        while true {
            if let end = findCRLF(from: start + searched) {
                guard end - start <= maximum else {
                    throw server.failure("a reply line is longer than \(maximum) bytes.")
                }
                let line = Array(buffer[start..<end])
                start = end + 2
                releaseIfDrained()
                return line
            }
            searched = max(0, buffer.count - start - 1)
            guard buffer.count - start <= maximum else {
                throw server.failure("a reply line is longer than \(maximum) bytes.")
            }
            guard try fill() else { throw endOfStream() }
        }
    }

    /// Exactly `count` bytes.
    package func readExactly(_ count: Int) throws -> Data {
        while buffer.count - start < count {
            guard try fill() else { throw endOfStream() }
        }
        let data = Data(buffer[start..<start + count])
        start += count
        releaseIfDrained()
        return data
    }

    /// Hands `sink` the next bytes, at most `maximum` and at least one: those buffered, else
    /// those of the next receive (never more than 64 KiB at a time).
    ///
    /// - Returns: How many bytes `sink` was given; 0 at the end of the stream.
    package func readSome(maximum: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
        precondition(maximum > 0, "a read asks for at least one byte")
        if start == buffer.count {
            guard try fill() else { return 0 }
        }
        let count = min(maximum, buffer.count - start)
        try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[start..<start + count])) }
        start += count
        releaseIfDrained()
        return count
    }

    /// The bytes the receive buffer holds room for (tests check that it shrinks).
    package var bufferCapacity: Int { buffer.capacity }

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
        if let tls { return try fill(tls) }
        while true {
            let fd = try wait(for: Int16(POLLIN))
            guard let received = try SocketSyscalls.receive(fd, into: chunk, server: server) else { continue }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<received]))
            if received > 0 { receivedInOperation = true } else { closedByPeer = true }
            return received > 0
        }
    }

    /// Decrypts more bytes into the buffer, receiving ciphertext as the session needs it.
    ///
    /// - Returns: `false` at the end of the stream or of the TLS session.
    private func fill(_ tls: TLSSession) throws -> Bool {
        while true {
            switch try tls.read(into: chunk) {
            case .done(let count):
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
                receivedInOperation = true
                return true
            case .closed:
                closedByPeer = true
                return false
            case .needsInput:
                try sendCiphertext(tls)  // a reply the session owes the server (a key update)
                guard try receiveCiphertext(tls) else {
                    closedByPeer = true
                    endedWithoutCloseNotify = true
                    return false
                }
            }
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
        guard let fd else { throw server.failure("the connection is closed.") }
        let remaining = SocketSyscalls.milliseconds(until: deadline)
        guard remaining > 0, try SocketSyscalls.poll(fd, events: events, milliseconds: remaining, server: server) else {
            throw server.failure("no answer within \(operationTimeout).", errno: ETIMEDOUT)
        }
        return fd
    }

    private func endOfStream() -> BlobStoreError {
        server.failure("the server closed the connection in the middle of a reply.")
    }
}
