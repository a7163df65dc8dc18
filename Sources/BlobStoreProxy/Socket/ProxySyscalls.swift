import BlobStore
import BlobStoreHTTP
import CEpoll
import Foundation
import Glibc

/// Every socket system call the proxy makes, each wrapped once: `EINTR` is retried, failures
/// become ``BlobStore/BlobStoreError`` with code `network` and the `errno`, and sockets are
/// blocking with a receive and a send timeout, so that no call waits forever.
enum ProxySyscalls {
    /// A listening TCP socket on `host:port` (port 0 picks a free one).
    ///
    /// - Throws: `invalidArgument` for a host that is not a numeric address or `localhost`,
    ///   `network` when the address is taken or cannot be bound.
    static func listen(host: String, port: UInt16, backlog: CInt = 1024) throws -> CInt {
        let address = try resolve(host: host, port: port, numericOnly: true, what: "listen address")
        let fd = socket(address.family, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)  // man 2 socket
        guard fd >= 0 else { throw failure("socket", "cannot create a socket") }
        var one: CInt = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<CInt>.size))  // man 7 socket
        let bound = address.bytes.withUnsafeBytes { bytes in
            bind(fd, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))  // man 2 bind
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {  // man 2 listen
            let error = failure("bind", "cannot listen on \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// The port a socket is bound to.
    static func boundPort(_ fd: CInt) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let port = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> UInt16 in
                guard getsockname(fd, address, &length) == 0 else { return 0 }  // man 2 getsockname
                if address.pointee.sa_family == sa_family_t(AF_INET6) {
                    return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        UInt16(bigEndian: $0.pointee.sin6_port)
                    }
                }
                return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
            }
        }
        return port
    }

    /// The next connection on a listening socket, non-blocking (as ``sendFile(_:from:offset:count:)``
    /// needs; every other call passes `MSG_DONTWAIT` anyway), with `TCP_NODELAY`; `nil` when the
    /// listener was shut down (or a connection failed before it was accepted).
    static func accept(_ listener: CInt) -> (fd: CInt, peer: String)? {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    blobstore_accept(listener, $0, &length)  // man 2 accept4: not inherited by children
                }
            }
            if fd >= 0 {
                setNoDelay(fd)
                return (fd, peerName(storage))
            }
            switch errno {
            case EINTR, ECONNABORTED, EPROTO: continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                usleep(10_000)  // out of descriptors or memory: wait for connections to close
                continue
            default: return nil
            }
        }
    }

    /// A non-blocking TCP connection to `host:port` begun, with `TCP_NODELAY`: connected when
    /// ``connectionError(_:)`` says nothing once the socket is writable.
    ///
    /// - Throws: `network` when the name does not resolve or the connection is refused at once.
    static func startConnecting(host: String, port: UInt16) throws -> CInt {
        let address = try resolve(host: host, port: port, numericOnly: false, what: "origin")
        let fd = socket(
            address.family, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_NONBLOCK.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw failure("socket", "cannot create a socket") }
        let connected = address.bytes.withUnsafeBytes { bytes in
            Glibc.connect(fd, bytes.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(bytes.count))
        }  // man 2 connect
        guard connected == 0 || errno == EINPROGRESS || errno == EINTR else {
            let error = failure("connect", "cannot connect to \(host):\(port)")
            Glibc.close(fd)
            throw error
        }
        setNoDelay(fd)
        return fd
    }

    /// Whether the connection ``startConnecting(host:port:)`` began on `fd`, now writable, failed.
    ///
    /// - Throws: `network` with the connection's error.
    static func connectionError(_ fd: CInt, host: String, port: UInt16) throws {
        var error: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)  // man 2 getsockopt
        guard error == 0 else { throw BlobStoreError(.network, "Cannot connect to \(host):\(port).", errno: error) }
    }

    /// Receives what has arrived, without waiting.
    ///
    /// - Returns: The count received, 0 at the end of the stream; `nil` when nothing has arrived.
    /// - Throws: `network` when the connection broke.
    static func receive(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        while true {
            let count = recv(fd, buffer.baseAddress, buffer.count, CInt(MSG_DONTWAIT))  // man 2 recv
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw failure("recv", "the connection broke")
            }
        }
    }

    /// Sends what the socket takes of `buffer` at once, without raising `SIGPIPE`.
    ///
    /// - Returns: The count sent.
    /// - Throws: `network` when the peer is gone.
    static func send(_ fd: CInt, _ buffer: UnsafeRawBufferPointer) throws -> Int {
        var offset = 0
        while offset < buffer.count {
            // man 2 send
            let count = Glibc.send(
                fd, buffer.baseAddress! + offset, buffer.count - offset, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT))
            if count >= 0 {
                offset += count
                continue
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return offset
            default: throw failure("send", "the connection broke")
            }
        }
        return offset
    }

    /// Sends what a non-blocking socket takes at once of up to `count` bytes of the file `file`
    /// from `offset`, which it advances: the bytes go from the page cache to the socket without
    /// being copied through the process.
    ///
    /// - Returns: The count sent, 0 when the file ends at `offset`; `nil` when the socket takes
    ///   nothing now.
    /// - Throws: `network` when the peer is gone or the file cannot be read.
    static func sendFile(_ fd: CInt, from file: CInt, offset: inout off_t, count: Int) throws -> Int? {
        while true {
            let sent = sendfile(fd, file, &offset, count)  // man 2 sendfile
            if sent >= 0 { return sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: throw failure("sendfile", "the connection broke or the stored file cannot be read")
            }
        }
    }

    /// Sends what the socket takes at once of `first` followed by `second`, in one system call
    /// (a head and a body that go out together), without raising `SIGPIPE`.
    ///
    /// - Returns: The count sent, of both together (less than both when the socket's buffer
    ///   filled).
    /// - Throws: `network` when the peer is gone.
    static func send(_ fd: CInt, _ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) throws -> Int {
        guard !first.isEmpty else { return try send(fd, second) }
        guard !second.isEmpty else { return try send(fd, first) }
        // On the stack: an array of the two would be allocated at every call.
        let count = withUnsafeTemporaryAllocation(of: iovec.self, capacity: 2) { parts in
            parts[0] = iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress), iov_len: first.count)
            parts[1] = iovec(iov_base: UnsafeMutableRawPointer(mutating: second.baseAddress), iov_len: second.count)
            var message = msghdr()
            message.msg_iov = parts.baseAddress
            message.msg_iovlen = parts.count
            while true {
                let count = sendmsg(fd, &message, CInt(MSG_NOSIGNAL) | CInt(MSG_DONTWAIT))  // man 2 sendmsg
                if count >= 0 || errno != EINTR { return count }
            }
        }
        guard count >= 0 else {
            if errno == EAGAIN || errno == EWOULDBLOCK { return 0 }
            throw failure("sendmsg", "the connection broke")
        }
        return count
    }

    // MARK: - Event loop

    /// An `epoll` descriptor and an `eventfd` it watches, which ``signalWake(_:)`` makes readable.
    ///
    /// - Throws: `network` when the kernel refuses either.
    static func eventLoopDescriptors() throws -> (epoll: CInt, wake: CInt) {
        let epoll = epoll_create1(CInt(EPOLL_CLOEXEC))  // man 2 epoll_create1
        guard epoll >= 0 else { throw failure("epoll_create1", "the proxy's event loop could not start") }
        let wake = eventfd(0, CInt(EFD_CLOEXEC) | CInt(EFD_NONBLOCK))  // man 2 eventfd
        guard wake >= 0 else {
            let error = failure("eventfd", "the proxy's event loop could not start")
            close(epoll)
            throw error
        }
        guard watch(epoll, wake) else {
            let error = failure("epoll_ctl", "the proxy's event loop could not start")
            close(epoll)
            close(wake)
            throw error
        }
        return (epoll, wake)
    }

    /// Adds `fd` to `epoll`, readable, level-triggered: the loop's own `eventfd`.
    static func watch(_ epoll: CInt, _ fd: CInt) -> Bool {
        blobstore_epoll_watch(epoll, fd) == 0  // man 2 epoll_ctl
    }

    /// Adds `fd` to `epoll` for the rest of its life, readable and writable, edge-triggered: each
    /// arrival of bytes, and each freeing of room after a send that filled the socket's buffer,
    /// reports once. Closing `fd` takes it out.
    static func follow(_ epoll: CInt, _ fd: CInt) -> Bool {
        blobstore_epoll_follow(epoll, fd) == 0  // man 2 epoll_ctl
    }

    /// What one descriptor of ``wait(_:into:events:timeout:)`` is ready for.
    struct Readiness {
        let mask: UInt32
        var readable: Bool { mask & UInt32(blobstore_epoll_readable) != 0 }
        var writable: Bool { mask & UInt32(blobstore_epoll_writable) != 0 }
        /// Whether a read may now return fewer bytes than the socket holds (an end of stream, an
        /// error or urgent data follows them).
        var readsMayStopShort: Bool { mask & UInt32(blobstore_epoll_short_reads) != 0 }
    }

    /// Waits up to `milliseconds` for descriptors of `epoll` to become ready, and writes their
    /// numbers into `ready` and what they are ready for into `events`.
    ///
    /// - Returns: How many of `ready` were written; 0 on timeout or interruption.
    static func wait(_ epoll: CInt, into ready: inout [CInt], events: inout [UInt32], milliseconds: CInt) -> Int {
        let count = ready.withUnsafeMutableBufferPointer { ready in
            events.withUnsafeMutableBufferPointer { events in
                // man 2 epoll_wait
                blobstore_epoll_wait(epoll, ready.baseAddress, events.baseAddress, CInt(ready.count), milliseconds)
            }
        }
        return max(0, Int(count))
    }

    /// Makes the `eventfd` `wake` readable.
    static func signalWake(_ wake: CInt) {
        var one: UInt64 = 1
        _ = Glibc.write(wake, &one, 8)  // man 2 eventfd
    }

    /// Reads the `eventfd` `wake` back to not readable.
    static func drainWake(_ wake: CInt) {
        var count: UInt64 = 0
        _ = Glibc.read(wake, &count, 8)  // man 2 eventfd
    }

    /// Whether an idle connection is still open: nothing to read, no end of stream, no error
    /// (a peek that does not wait).
    static func isOpen(_ fd: CInt) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, CInt(MSG_PEEK) | CInt(MSG_DONTWAIT))  // man 2 recv
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Stops reading and writing on `fd`, waking a thread blocked on it; the descriptor stays
    /// open until ``close(_:)``.
    static func shutdown(_ fd: CInt) {
        _ = Glibc.shutdown(fd, CInt(SHUT_RDWR))  // man 2 shutdown
    }

    /// Writes `line` (or lines) with one `write(2)` and no lock: a write to a file opened with `O_APPEND`
    /// (or to a pipe, up to `PIPE_BUF` bytes) is not interleaved with another thread's. A failed
    /// write is dropped (a log line is not worth failing a request for).
    static func appendLine(_ line: [UInt8], to fd: CInt) {
        line.withUnsafeBytes { appendLine($0, to: fd) }
    }

    /// Writes `bytes` to `fd` at once, as the form taking an array does.
    static func appendLine(_ bytes: UnsafeRawBufferPointer, to fd: CInt) {
        _ = Glibc.write(fd, bytes.baseAddress, bytes.count)  // man 2 write
    }

    /// Runs `body` on a thread of its own each time the process receives SIGTERM or SIGINT: the
    /// handler (async-signal-safe) writes a byte to a pipe the thread reads. Call once.
    static func onTermination(_ body: @escaping @Sendable () -> Void) {
        var ends: [CInt] = [-1, -1]
        guard pipe(&ends) == 0 else { return }  // man 2 pipe
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        proxyTerminationPipe = ends[1]
        for signalNumber in [SIGTERM, SIGINT] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(proxyTerminationPipe, &byte, 1)  // async-signal-safe
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)  // man 2 sigaction
        }
        // A process may start with these signals blocked (a parent's mask is inherited): unblock
        // them in this thread, whose later threads inherit its mask, so that one can take them.
        var termination = sigset_t()
        sigemptyset(&termination)
        sigaddset(&termination, SIGTERM)
        sigaddset(&termination, SIGINT)
        pthread_sigmask(SIG_UNBLOCK, &termination, nil)  // man 3 pthread_sigmask
        let reader = ends[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)  // man 2 read
                if count == 1 { body() } else if count == 0 || errno != EINTR { return }
            }
        }
    }

    static func close(_ fd: CInt) {
        _ = Glibc.close(fd)  // man 2 close: the descriptor is released even when it fails
    }

    // MARK: - Helpers

    /// One address, copied out of `getaddrinfo`'s list.
    private struct Address {
        var family: CInt
        var bytes: [UInt8]
    }

    /// The first TCP address of `host:port`.
    private static func resolve(host: String, port: UInt16, numericOnly: Bool, what: String) throws -> Address {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = CInt(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV | (numericOnly && host != "localhost" ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)  // man 3 getaddrinfo
        guard status == 0, let list, let address = list.pointee.ai_addr else {
            let reason = String(cString: gai_strerror(status))
            throw BlobStoreError(
                numericOnly ? .invalidArgument : .network,
                "The \(what) \(host):\(port) does not resolve (\(reason)). Give an IP address or a name that resolves.")
        }
        defer { freeaddrinfo(list) }
        return Address(
            family: list.pointee.ai_family,
            bytes: Array(UnsafeRawBufferPointer(start: address, count: Int(list.pointee.ai_addrlen))))
    }

    /// The peer's numeric address.
    private static func peerName(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        let status = withUnsafePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo(
                    $0, socklen_t(MemoryLayout<sockaddr_storage>.size), &host, socklen_t(host.count), nil, 0,
                    NI_NUMERICHOST)  // man 3 getnameinfo
            }
        }
        return status == 0
            ? String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "-"
    }

    /// Makes a write to a connection the peer closed fail with `EPIPE` rather than end the
    /// process: `sendfile` has no `MSG_NOSIGNAL`, so a client that goes away during a body sent
    /// from a file would raise `SIGPIPE`.
    static func ignoreBrokenPipes() {
        _ = signal(SIGPIPE, SIG_IGN)  // man 2 signal
    }

    /// Sends small writes at once instead of waiting for the previous segment's ACK (Nagle).
    private static func setNoDelay(_ fd: CInt) {
        var one: CInt = 1
        setsockopt(fd, CInt(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<CInt>.size))  // man 7 tcp
    }

    private static func failure(_ call: String, _ what: String) -> BlobStoreError {
        BlobStoreError(.network, "The proxy's \(call) failed: \(what).", errno: errno)
    }
}

/// The write end of the pipe the termination handler writes to (``ProxySyscalls/onTermination(_:)``);
/// a global, since a signal handler is a C function and captures nothing. Set once, before the
/// handler is installed.
nonisolated(unsafe) private var proxyTerminationPipe: CInt = -1
