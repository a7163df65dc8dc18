/// How long a remote backend waits.
public struct RemoteTimeouts: Sendable, Equatable {
    /// The longest wait for a TCP connection, once the host name resolved. (default: 100 ms, as
    /// ccache)
    public var connect: Duration
    /// The longest wait for one request and its reply, once connected. (default: 10 s)
    public var operation: Duration
    /// The longest wait for a host name to resolve (`getaddrinfo`); IP addresses resolve at once.
    /// (default: 1 s)
    public var nameResolution: Duration

    /// - Parameters:
    ///   - connect: The longest wait for a TCP connection.
    ///   - operation: The longest wait for one request and its reply.
    ///   - nameResolution: The longest wait for a host name to resolve.
    public init(
        connect: Duration = .milliseconds(100), operation: Duration = .seconds(10),
        nameResolution: Duration = .seconds(1)
    ) {
        self.connect = connect
        self.operation = operation
        self.nameResolution = nameResolution
    }
}
