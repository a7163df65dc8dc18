import BlobStore
import Foundation
import Synchronization

/// A blocking HTTP/1.1 client of our own, for `http://` and `https://` (OpenSSL, the server's
/// certificate checked): the remote tier's HTTP backend and the HTTP cache's downloads (and so
/// `blobstore fetch`) send their requests with it.
///
/// One connection per request (`Connection: close`), made within ``ConnectTimeouts``; the reply
/// is read within ``ReplyDeadline``. A response body is read by the caller a piece at a time as
/// it arrives (``HTTPExchange``), so the memory an exchange holds is bounded whatever the body's
/// size, and a slow reader slows the server (TCP's flow control). Redirects are not followed
/// here: the caller decides.
package final class HTTPClient: Sendable {
    /// How long the reply to a request may take.
    package enum ReplyDeadline: Sendable, Equatable {
        /// The request sent and the whole reply read within this time (the remote tier's exact
        /// operation timeout).
        case total(Duration)
        /// Each wait for the server (to take the request, to send the next bytes) within this
        /// time: a long body may take as long as it keeps coming.
        case idle(Duration)
    }

    private let connecting: ConnectTimeouts
    private let reply: ReplyDeadline
    private let resolver: NameResolver
    private let userAgent: String
    /// The server of a URL, as errors name it.
    private let peer: @Sendable (URL) -> NetworkPeer
    /// Makes the TLS context on the first `https://` request; kept for the next ones.
    private let makeTLS: @Sendable () throws -> TLSContext
    private let tls = Mutex<TLSContext?>(nil)

    /// - Parameters:
    ///   - connecting: The timeouts of name resolution, connection and TLS handshake.
    ///   - reply: How long a reply may take.
    ///   - userAgent: The `User-Agent` sent unless the request has one.
    ///   - resolver: Resolves host names (tests pass one that stalls).
    ///   - peer: The server of a URL, as errors name it (with their code).
    ///   - makeTLS: The TLS settings, made when the first `https://` request needs them.
    package init(
        connecting: ConnectTimeouts, reply: ReplyDeadline, userAgent: String = "blobstore",
        resolver: NameResolver = .system, peer: @escaping @Sendable (URL) -> NetworkPeer,
        makeTLS: @escaping @Sendable () throws -> TLSContext
    ) {
        self.connecting = connecting
        self.reply = reply
        self.userAgent = userAgent
        self.resolver = resolver
        self.peer = peer
        self.makeTLS = makeTLS
    }

    /// Connects to the request's server, sends the request and reads the response's head.
    ///
    /// - Returns: The exchange, whose body the caller reads or closes.
    /// - Throws: `BlobStoreError` with the peer's code when the URL is not `http(s)://` with a
    ///   host, the server cannot be reached in time, or it answers something that is not HTTP/1.1.
    package func start(_ request: HTTPClientRequest) throws -> HTTPExchange {
        let server = peer(request.url)
        let target = try Self.target(of: request.url, server: server)
        let context = try target.secure ? tlsContext() : nil
        let connection = try TCPConnection(
            host: target.host, port: target.port, timeouts: connecting, resolver: resolver, server: server,
            tls: context)
        switch reply {
        case .total(let timeout), .idle(let timeout): connection.startOperation(timeout: timeout)
        }
        do {
            try connection.write(message(request, target))
            if request.body.count > Self.coalescedBody { try connection.write(request.body) }
            return try HTTPExchange(connection: connection, method: request.method, deadlineIsIdle: reply.isIdle)
        } catch {
            connection.close()
            throw error
        }
    }

    /// A body up to this size goes out in one write with the head.
    private static let coalescedBody = 64 << 10

    /// The request's head (and its body, when small).
    private func message(_ request: HTTPClientRequest, _ target: Target) -> Data {
        let defaultPort: UInt16 = target.secure ? 443 : 80
        let host = target.host.contains(":") ? "[\(target.host)]" : target.host
        var own: [(name: String, value: String)] = [
            ("Host", target.port == defaultPort ? host : "\(host):\(target.port)"), ("User-Agent", userAgent),
            ("Connection", "close"),
        ]
        own.removeAll { field in request.headers.contains { $0.name.lowercased() == field.name.lowercased() } }
        var head = "\(request.method) \(target.path) HTTP/1.1\r\n"
        for (name, value) in own + request.headers { head += "\(name): \(value)\r\n" }
        let sendsLength = !request.body.isEmpty || request.method == "PUT" || request.method == "POST"
        if sendsLength, !request.headers.contains(where: { $0.name.lowercased() == "content-length" }) {
            head += "Content-Length: \(request.body.count)\r\n"
        }
        head += "\r\n"
        var message = Data(head.utf8)
        if request.body.count <= Self.coalescedBody { message.append(request.body) }
        return message
    }

    private func tlsContext() throws -> TLSContext {
        if let made = tls.withLock({ $0 }) { return made }
        let made = try makeTLS()
        return tls.withLock { kept in
            if let kept { return kept }
            kept = made
            return made
        }
    }

    // MARK: - URLs

    /// Where a URL's request goes: its host, port, whether over TLS, and the request target
    /// (the path and query, percent-encoded as in the URL).
    struct Target: Equatable {
        var secure: Bool
        var host: String
        var port: UInt16
        var path: String
    }

    static func target(of url: URL, server: NetworkPeer) throws -> Target {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { throw server.failure("only http:// and https:// URLs can be fetched.") }
        guard let host = components.host, !host.isEmpty else { throw server.failure("the URL has no host.") }
        let secure = scheme == "https"
        let port: UInt16
        if let given = components.port {
            guard let valid = UInt16(exactly: given), valid > 0 else {
                throw server.failure("the URL's port is not 1 to 65535.")
            }
            port = valid
        } else {
            port = secure ? 443 : 80
        }
        var path = components.percentEncodedPath
        if path.isEmpty { path = "/" }
        if let query = components.percentEncodedQuery { path += "?" + query }
        // A host in brackets is an IPv6 address: the socket wants it without.
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return Target(secure: secure, host: bare, port: port, path: path)
    }
}

extension HTTPClient.ReplyDeadline {
    var isIdle: Bool {
        if case .idle = self { return true }
        return false
    }
}
