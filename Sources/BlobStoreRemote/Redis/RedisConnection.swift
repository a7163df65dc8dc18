import BlobStore
import Foundation

/// One connection to a Redis server, logged in and on its database: sends commands, reads
/// RESP2 replies with every length bounded, so that a hostile server cannot make it trap or
/// allocate more than it accepts: one line of at most ``maximumLineLength`` bytes, or one bulk
/// string of at most the size the command accepts. Array replies are refused (no command sent
/// expects one).
final class RedisConnection: Sendable {
    /// The longest status, error or length line accepted.
    static let maximumLineLength = 64 << 10

    let server: RedisServer
    private let connection: TCPConnection

    /// Connects, then sends `AUTH` and `SELECT` when the server description asks for them.
    ///
    /// - Throws: ``BlobStoreError/Code/remote`` when it cannot connect or log in.
    init(_ server: RedisServer, timeouts: RemoteTimeouts, resolver: NameResolver = .system) throws {
        self.server = server
        connection = try TCPConnection(
            host: server.host, port: server.port, timeouts: timeouts, resolver: resolver, server: server.description)
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

    /// Sends one command and reads its reply.
    ///
    /// - Parameters:
    ///   - arguments: The command and its arguments.
    ///   - maximumBulk: The largest bulk string accepted in the reply.
    ///   - timeout: The longest wait for the whole exchange.
    /// - Returns: The reply; an error reply is returned, not thrown.
    func command(_ arguments: [Data], maximumBulk: Int, timeout: Duration) throws -> RESPValue {
        connection.startOperation(timeout: timeout)
        try connection.write(RESPValue.command(arguments))
        return try readValue(maximumBulk: maximumBulk)
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

    private func readValue(maximumBulk: Int) throws -> RESPValue {
        let line = try connection.readLine(maximum: Self.maximumLineLength)
        guard let type = line.first else { throw malformed("an empty reply line") }
        let rest = String(decoding: line.dropFirst(), as: UTF8.self)
        switch type {
        case UInt8(ascii: "+"):
            return .simple(rest)
        case UInt8(ascii: "-"):
            return .error(rest)
        case UInt8(ascii: ":"):
            guard let value = Int64(rest) else { throw malformed("a bad integer") }
            return .integer(value)
        case UInt8(ascii: "$"):
            guard let length = Int(rest), length >= -1 else { throw malformed("a bad bulk length") }
            if length == -1 { return .bulk(nil) }
            guard length <= maximumBulk else {
                throw BlobStoreError.remoteTooLarge(server.description, size: length, maximum: maximumBulk)
            }
            let (total, overflow) = length.addingReportingOverflow(2)
            guard !overflow else { throw malformed("a bad bulk length") }
            let data = try connection.readExactly(total)
            guard data.suffix(2).elementsEqual([13, 10]) else { throw malformed("a bulk string without CRLF") }
            return .bulk(data.prefix(length))
        case UInt8(ascii: "*"):
            // No command sent expects an array; reading one would need a budget across its
            // elements (64 MiB bulks nested in arrays).
            throw malformed("an array reply")
        default:
            throw malformed("an unknown reply type")
        }
    }

    private func malformed(_ what: String) -> BlobStoreError {
        connection.close()
        return BlobStoreError.remote(server.description, "the reply is not Redis protocol: \(what).")
    }
}
