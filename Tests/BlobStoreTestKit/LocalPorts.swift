import Glibc

/// Ports on 127.0.0.1 for the test servers and clients.
public enum LocalPorts {
    /// A port the kernel just handed out and released: free unless someone takes it at once.
    public static func free() -> UInt16 {
        let (fd, port) = boundSocket()
        close(fd)
        return port
    }

    /// A socket listening on 127.0.0.1 at a port the kernel chose; the caller closes it. The
    /// kernel accepts connections on it whether or not anyone calls `accept`.
    public static func listening() -> (fd: CInt, port: UInt16) {
        let (fd, port) = boundSocket()
        precondition(listen(fd, 16) == 0, "listen failed")
        return (fd, port)
    }

    /// A TCP socket bound to 127.0.0.1 at a port the kernel chose.
    private static func boundSocket() -> (fd: CInt, port: UInt16) {
        let fd = socket(AF_INET, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0, "socket failed")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
            }
        }
        precondition(bound, "bind failed")
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
