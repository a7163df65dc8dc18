/// How long a remote backend waits.
public struct RemoteTimeouts: Sendable, Equatable {
    /// The longest wait for a TCP connection. (default: 100 ms, as ccache)
    public var connect: Duration
    /// The longest wait for one request and its reply, once connected. (default: 10 s)
    public var operation: Duration

    /// - Parameters:
    ///   - connect: The longest wait for a TCP connection.
    ///   - operation: The longest wait for one request and its reply.
    public init(connect: Duration = .milliseconds(100), operation: Duration = .seconds(10)) {
        self.connect = connect
        self.operation = operation
    }
}
