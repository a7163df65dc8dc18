import BlobStore
import Glibc

/// A connected socket's descriptor (a plain value: ``SocketSyscalls/close(_:)`` closes it).
package struct SocketDescriptor: Sendable, Equatable {
    package let rawValue: CInt

    package init(rawValue: CInt) {
        self.rawValue = rawValue
    }
}

/// One address `getaddrinfo` returned, copied out of its list.
package struct SocketAddress: Sendable, Equatable {
    package let family: CInt
    package let socketType: CInt
    package let protocolNumber: CInt
    /// The `sockaddr` it points to, byte for byte.
    package let bytes: [UInt8]
}

/// Every socket system call of the package's blocking clients (the remote tier, the HTTP cache's
/// downloads), each wrapped once (docs/design.md, "Architecture"): `EINTR` is
/// retried in one helper, descriptors are typed and non-blocking, and callers wait with
/// ``poll(_:events:milliseconds:)`` so that no call blocks past a deadline.
package enum SocketSyscalls {
    /// Resolves `host` with `resolver` and connects to the first address that answers within
    /// `timeout`.
    ///
    /// - Parameters:
    ///   - timeout: The longest wait for the connection, after the name resolved.
    ///   - resolutionTimeout: The longest wait for the name to resolve (numeric addresses
    ///     resolve at once).
    /// - Returns: A connected, non-blocking socket with `TCP_NODELAY` set.
    /// - Throws: the peer's code (``NetworkPeer``) when the name does not resolve in time, or no
    ///   address connects in time.
    package static func connect(
        host: String, port: UInt16, timeout: Duration, resolutionTimeout: Duration = .seconds(1),
        resolver: NameResolver = .system, server: NetworkPeer
    ) throws -> SocketDescriptor {
        let addresses = try resolver.resolve(host: host, port: port, timeout: resolutionTimeout, server: server)
        let deadline = ContinuousClock.now + timeout
        var lastErrno: Int32 = ECONNREFUSED
        for address in addresses {
            let type = address.socketType | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
            let raw = socket(address.family, type, address.protocolNumber)  // man 2 socket
            guard raw >= 0 else {
                lastErrno = errno
                continue
            }
            let fd = SocketDescriptor(rawValue: raw)
            let connected = address.bytes.withUnsafeBytes { bytes in
                Glibc.connect(raw, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
            }
            if connected == 0 {
                setNoDelay(fd)
                return fd
            }
            lastErrno = errno
            // man 2 connect: EINPROGRESS for a non-blocking socket (EINTR: the connection goes on
            // in the background, as with EINPROGRESS).
            if lastErrno == EINPROGRESS || lastErrno == EINTR {
                let remaining = milliseconds(until: deadline)
                if remaining > 0,
                    (try? poll(fd, events: Int16(POLLOUT), milliseconds: remaining, server: server)) == true
                {
                    var error: CInt = 0
                    var length = socklen_t(MemoryLayout<CInt>.size)
                    getsockopt(raw, SOL_SOCKET, SO_ERROR, &error, &length)  // man 2 getsockopt
                    if error == 0 {
                        setNoDelay(fd)
                        return fd
                    }
                    lastErrno = error
                } else {
                    lastErrno = ETIMEDOUT
                }
            }
            close(fd)
        }
        let what = lastErrno == ETIMEDOUT ? "connection timed out after \(timeout)" : "cannot connect"
        throw server.failure("\(what).", errno: lastErrno)
    }

    /// `getaddrinfo(host, port)` for TCP, copied into values. It blocks for as long as the
    /// resolver takes: ``NameResolver`` bounds the wait.
    ///
    /// - Parameter numericOnly: Convert a numeric address only (`AI_NUMERICHOST`): never asks a
    ///   resolver, and fails for a name.
    package static func addresses(_ host: String, _ port: UInt16, numericOnly: Bool) -> Result<
        [SocketAddress], NameResolver.LookupFailure
    > {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        hints.ai_flags = (numericOnly ? AI_NUMERICHOST : 0) | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)  // man 3 getaddrinfo
        guard status == 0, let list else {
            return .failure(NameResolver.LookupFailure(reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var current: UnsafeMutablePointer<addrinfo>? = list
        while let entry = current?.pointee {
            current = entry.ai_next
            guard let address = entry.ai_addr else { continue }
            let bytes = Array(UnsafeRawBufferPointer(start: address, count: Int(entry.ai_addrlen)))
            addresses.append(
                SocketAddress(
                    family: entry.ai_family, socketType: entry.ai_socktype, protocolNumber: entry.ai_protocol,
                    bytes: bytes))
        }
        return .success(addresses)
    }

    /// Waits until `fd` is ready for `events` or `milliseconds` pass.
    ///
    /// - Returns: `true` when ready (or the peer hung up, which the next call reports), `false`
    ///   on timeout.
    package static func poll(_ fd: SocketDescriptor, events: Int16, milliseconds: Int32, server: NetworkPeer) throws
        -> Bool
    {
        var entry = pollfd(fd: fd.rawValue, events: events, revents: 0)
        let count = try retrying("poll", server: server) { Glibc.poll(&entry, 1, milliseconds) }  // man 2 poll
        return (count ?? 0) > 0
    }

    /// Sends what the socket takes now without raising `SIGPIPE`.
    ///
    /// - Returns: The number of bytes sent; 0 when the socket's buffer is full.
    package static func send(_ fd: SocketDescriptor, _ buffer: UnsafeRawBufferPointer, server: NetworkPeer) throws
        -> Int
    {
        let sent = try retrying("send", server: server) {
            Glibc.send(fd.rawValue, buffer.baseAddress, buffer.count, CInt(MSG_NOSIGNAL))  // man 2 send
        }
        return sent ?? 0
    }

    /// Receives what has arrived.
    ///
    /// - Returns: The number of bytes received, 0 at the end of the stream, `nil` when nothing
    ///   has arrived yet.
    package static func receive(_ fd: SocketDescriptor, into buffer: UnsafeMutableRawBufferPointer, server: NetworkPeer)
        throws
        -> Int?
    {
        try retrying("recv", server: server) { recv(fd.rawValue, buffer.baseAddress, buffer.count, 0) }  // man 2 recv
    }

    package static func close(_ fd: SocketDescriptor) {
        _ = Glibc.close(fd.rawValue)  // man 2 close: the descriptor is released even when it fails
    }

    /// The whole milliseconds left until `deadline`, at least 0, at most `Int32.max`.
    package static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = left.components
        guard seconds >= 0 else { return 0 }
        guard seconds <= Int64(Int32.max / 1000) else { return Int32.max }
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, attoseconds > 0 ? 1 : 0))
    }

    // MARK: - Helpers

    /// Runs `call` until it does not fail with `EINTR`.
    ///
    /// - Returns: Its result, or `nil` when it failed with `EAGAIN` (nothing to do yet).
    /// - Throws: the peer's code (``NetworkPeer``) for any other failure, with its `errno`.
    private static func retrying<T: BinaryInteger>(_ name: String, server: NetworkPeer, _ call: () -> T) throws -> T? {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default:
                let what = name == "poll" ? "poll failed" : "the connection broke (\(name))"
                throw server.failure("\(what).", errno: code)
            }
        }
    }

    /// Sends small requests at once instead of waiting for the previous segment's ACK (Nagle).
    private static func setNoDelay(_ fd: SocketDescriptor) {
        var one: CInt = 1
        // man 7 tcp; an error only costs latency.
        setsockopt(fd.rawValue, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
    }
}
