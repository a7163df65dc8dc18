import BlobStore
import Glibc

/// Every socket system call the remote tier makes, each wrapped once (STYLE.md, 4): descriptors
/// are non-blocking, and callers wait with ``poll(_:events:milliseconds:)`` so that no call
/// blocks past a deadline.
enum SocketSyscalls {
    /// Resolves `host` and connects to the first address that answers within `timeout`.
    ///
    /// Name resolution (`getaddrinfo`) cannot be interrupted and is not bounded by `timeout`;
    /// numeric addresses and `/etc/hosts` names resolve at once.
    ///
    /// - Returns: A connected, non-blocking socket with `TCP_NODELAY` set.
    /// - Throws: ``BlobStoreError/Code/remote`` when no address connects in time.
    static func connect(host: String, port: UInt16, timeout: Duration, server: String) throws -> CInt {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)  // man 3 getaddrinfo
        guard status == 0, let list else {
            let reason = String(cString: gai_strerror(status))
            throw BlobStoreError.remote(server, "cannot resolve '\(host)': \(reason). Check the remote URL.")
        }
        defer { freeaddrinfo(list) }
        let deadline = ContinuousClock.now + timeout
        var lastErrno: Int32 = ECONNREFUSED
        var address: UnsafeMutablePointer<addrinfo>? = list
        while let current = address {
            address = current.pointee.ai_next
            let type = CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue)
            let fd = socket(current.pointee.ai_family, type, 0)  // man 2 socket
            guard fd >= 0 else {
                lastErrno = errno
                continue
            }
            if Glibc.connect(fd, current.pointee.ai_addr, current.pointee.ai_addrlen) == 0 {
                setNoDelay(fd)
                return fd
            }
            lastErrno = errno
            if lastErrno == EINPROGRESS {
                let remaining = milliseconds(until: deadline)
                if remaining > 0, (try? poll(fd, events: Int16(POLLOUT), milliseconds: remaining)) == true {
                    var error: CInt = 0
                    var length = socklen_t(MemoryLayout<CInt>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)  // man 2 getsockopt
                    if error == 0 {
                        setNoDelay(fd)
                        return fd
                    }
                    lastErrno = error
                } else {
                    lastErrno = ETIMEDOUT
                }
            }
            Glibc.close(fd)
        }
        let what = lastErrno == ETIMEDOUT ? "connection timed out after \(timeout)" : "cannot connect"
        throw BlobStoreError.remote(server, "\(what).", errno: lastErrno)
    }

    /// Waits until `fd` is ready for `events` or `milliseconds` pass.
    ///
    /// - Returns: `true` when ready (or the peer hung up, which the next call reports), `false`
    ///   on timeout.
    static func poll(_ fd: CInt, events: Int16, milliseconds: Int32) throws -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            let count = Glibc.poll(&entry, 1, milliseconds)  // man 2 poll
            if count >= 0 { return count > 0 }
            if errno != EINTR { throw BlobStoreError(.remote, "poll failed.", errno: errno) }
        }
    }

    /// Sends what the socket takes now without raising `SIGPIPE`.
    ///
    /// - Returns: The number of bytes sent; 0 when the socket's buffer is full.
    static func send(_ fd: CInt, _ buffer: UnsafeRawBufferPointer, server: String) throws -> Int {
        while true {
            let sent = Glibc.send(fd, buffer.baseAddress, buffer.count, CInt(MSG_NOSIGNAL))  // man 2 send
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return 0
            default: throw BlobStoreError.remote(server, "the connection broke while sending.", errno: errno)
            }
        }
    }

    /// Receives what has arrived.
    ///
    /// - Returns: The number of bytes received, 0 at the end of the stream, `nil` when nothing
    ///   has arrived yet.
    static func receive(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, server: String) throws -> Int? {
        while true {
            let received = recv(fd, buffer.baseAddress, buffer.count, 0)  // man 2 recv
            if received >= 0 { return received }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw BlobStoreError.remote(server, "the connection broke while receiving.", errno: errno)
            }
        }
    }

    static func close(_ fd: CInt) {
        _ = Glibc.close(fd)  // man 2 close: the descriptor is released even when it fails
    }

    /// The whole milliseconds left until `deadline`, at least 0, at most `Int32.max`.
    static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = left.components
        guard seconds >= 0 else { return 0 }
        guard seconds <= Int64(Int32.max / 1000) else { return Int32.max }
        let total = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        return Int32(clamping: max(total, attoseconds > 0 ? 1 : 0))
    }

    /// Sends small requests at once instead of waiting for the previous segment's ACK (Nagle).
    private static func setNoDelay(_ fd: CInt) {
        var one: CInt = 1
        // man 7 tcp; an error only costs latency.
        setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))
    }
}
