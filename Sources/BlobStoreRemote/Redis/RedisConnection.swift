import BlobStore
import BlobStoreNet
import Foundation

/// One connection to a Redis server, logged in and on its database: sends commands, reads
/// RESP2 replies with ``RESPDecoder``, every length bounded, so that a hostile server cannot make
/// it trap or allocate more than it accepts: one line of at most ``RESPLimits/maximumLine`` bytes, one
/// bulk string of at most the size the command accepts, and arrays only for the commands that
/// expect one (a cluster's topology), within their budget.
final class RedisConnection: Sendable {
    let server: RedisServer
    private let connection: TCPConnection

    /// Connects (with TLS when ``RedisServer/usesTLS``, verified with `tls`), then sends `AUTH`
    /// and `SELECT` when the server description asks for them.
    ///
    /// - Throws: ``BlobStoreError/Code/remote`` when it cannot connect, complete the TLS handshake
    ///   or log in.
    init(_ server: RedisServer, timeouts: RemoteTimeouts, resolver: NameResolver = .system, tls: TLSContext? = nil)
        throws
    {
        self.server = server
        let context = try server.usesTLS ? tls ?? TLSContext(RemoteTLS()) : nil
        connection = try TCPConnection(
            host: server.host, port: server.port, timeouts: timeouts.connecting, resolver: resolver,
            server: .remote(server.description),
            tls: context)
        if let password = server.password {
            let arguments = ["AUTH"] + (server.user.map { [$0] } ?? []) + [password]
            let reply = try command(arguments.map { Data($0.utf8) }, maximumBulk: 0, timeout: timeouts.operation)
            guard case .simple = reply else { throw unexpected(reply, to: "AUTH") }
        }
        if server.database != 0 {
            let reply = try command(
                [Data("SELECT".utf8), Data("\(server.database)".utf8)], maximumBulk: 0, timeout: timeouts.operation)
            guard case .simple = reply else { throw unexpected(reply, to: "SELECT") }
        }
    }

    func close() { connection.close() }

    /// Whether the last command failed because the server had closed the connection before
    /// replying, so that it may be sent again on a new one (``TCPConnection/failedBeforeReply(_:)``).
    func failedBeforeReply(_ error: any Error) -> Bool { connection.failedBeforeReply(error) }

    /// The receive buffer's capacity (tests check that a pooled connection gives it back).
    var bufferCapacity: Int { connection.bufferCapacity }

    /// Sends one command and reads its reply; an array reply is refused.
    ///
    /// - Parameters:
    ///   - arguments: The command and its arguments.
    ///   - maximumBulk: The largest bulk string accepted in the reply.
    ///   - timeout: The longest wait for the whole exchange.
    /// - Returns: The reply; an error reply is returned, not thrown.
    func command(_ arguments: [Data], maximumBulk: Int, timeout: Duration) throws -> RESPValue {
        try command(arguments, limits: RESPLimits(maximumBulk: maximumBulk), timeout: timeout)
    }

    /// Sends one command and reads its reply within `limits`.
    ///
    /// - Parameters:
    ///   - asking: Send `ASKING` first, in the same write (a cluster's `-ASK` redirection): the
    ///     node then serves the command for a slot it is importing. Its reply must be `+OK`.
    /// - Returns: The reply; an error reply is returned, not thrown.
    func command(_ arguments: [Data], limits: RESPLimits, timeout: Duration, asking: Bool = false) throws
        -> RESPValue
    {
        connection.startOperation(timeout: timeout)
        var request = asking ? RESPValue.command([Data("ASKING".utf8)]) : Data()
        request.append(RESPValue.command(arguments))
        try connection.write(request)
        if asking {
            let reply = try readValue(RESPLimits(maximumBulk: 0))
            guard case .simple("OK") = reply else {
                close()  // the command's reply is still to come: the stream is out of step
                throw unexpected(reply, to: "ASKING")
            }
        }
        return try readValue(limits)
    }

    /// An error for a reply a command should not get, quoting a Redis error's text.
    func unexpected(_ reply: RESPValue, to command: String) -> BlobStoreError {
        if case .error(let message) = reply {
            let hint =
                message.hasPrefix("NOAUTH") || message.hasPrefix("WRONGPASS") ? " Check the user and password." : ""
            return BlobStoreError.remote(server.description, "\(command) failed: \(message.prefix(200)).\(hint)")
        }
        return BlobStoreError.remote(server.description, "unexpected reply to \(command).")
    }

    // MARK: - Parsing

    private func readValue(_ limits: RESPLimits) throws -> RESPValue {
        var source = connection
        var decoder = RESPDecoder(limits: limits)
        do {
            return try decoder.decode(from: &source)
        } catch let error as RESPDecodingError {
            switch error {
            case .bulkTooLarge(let size, let maximum):
                throw BlobStoreError.remoteTooLarge(server.description, size: size, maximum: maximum)
            case .arrayTooLarge(let maximum):
                close()
                throw BlobStoreError.remote(
                    server.description, "an array reply is larger than the \(maximum) bytes accepted.")
            case .malformed(let what):
                throw malformed(what)
            case .truncated:
                throw malformed("the end of the reply")
            }
        }
    }

    private func malformed(_ what: String) -> BlobStoreError {
        connection.close()
        return BlobStoreError.remote(server.description, "the reply is not Redis protocol: \(what).")
    }
}
