/// How long making a connection may take, step by step.
package struct ConnectTimeouts: Sendable, Equatable {
    /// The longest wait for a host name to resolve (`getaddrinfo`); IP addresses resolve at once.
    package var nameResolution: Duration
    /// The longest wait for the TCP connection, once the name resolved.
    package var connect: Duration
    /// The longest wait for the TLS handshake, once connected.
    package var handshake: Duration

    package init(nameResolution: Duration, connect: Duration, handshake: Duration) {
        self.nameResolution = nameResolution
        self.connect = connect
        self.handshake = handshake
    }
}
