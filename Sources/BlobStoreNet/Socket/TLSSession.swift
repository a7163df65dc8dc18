/// One TLS client session over memory buffers (an OpenSSL `SSL`): ``TCPConnection`` feeds it
/// what the socket received and sends what it outputs.
///
/// Not thread-safe: its connection uses it one operation at a time.
final class TLSSession {
    private let ssl: OpaquePointer
    private let server: NetworkPeer

    /// A session that checks that the server's certificate names `host` (and sends `host` as
    /// the server name, unless it is an IP address).
    init(_ context: TLSContext, host: String, server: NetworkPeer) throws {
        ssl = try OpenSSL.makeSession(context.context, host: host, server: server)
        self.server = server
    }

    deinit { OpenSSL.freeSession(ssl) }

    /// One step of the handshake: `true` once it is complete.
    func handshake() throws -> Bool { try OpenSSL.handshake(ssl, server: server) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> OpenSSL.Step {
        try OpenSSL.read(ssl, into: buffer, server: server)
    }

    func write(_ buffer: UnsafeRawBufferPointer) throws -> OpenSSL.Step {
        try OpenSSL.write(ssl, buffer, server: server)
    }

    /// Ciphertext from the server.
    func feed(_ bytes: UnsafeRawBufferPointer) { OpenSSL.feed(ssl, bytes) }

    /// Ciphertext for the server, moved into `buffer`; 0 when there is none.
    func takeOutput(into buffer: UnsafeMutableRawBufferPointer) -> Int { OpenSSL.takeOutput(ssl, into: buffer) }
}
