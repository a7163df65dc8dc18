import BlobStore
import BlobStoreNet
import Foundation

/// ``HTTPTransport`` over the package's own HTTP/1.1 client (``HTTPClient``), so that the connect
/// timeout, the TLS handshake's and the per-request deadline are exact. One connection per
/// request; only a success's body is read (an error page, nginx's 404 say, is not).
struct SocketHTTPTransport: HTTPTransport {
    /// `http://host:port` or `https://host:port`, to which a request's path is appended.
    let origin: String
    let client: HTTPClient

    /// - Parameters:
    ///   - tls: For `https://`: the TLS settings (the certificate must name `host`); `nil` for
    ///     `http://`.
    ///   - server: The server, without credentials, for messages.
    init(host: String, port: UInt16, timeouts: RemoteTimeouts, server: String, tls: TLSContext?) {
        let authority = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        origin = (tls == nil ? "http://" : "https://") + authority
        client = HTTPClient(
            connecting: timeouts.connecting, reply: .total(timeouts.operation), peer: { _ in .remote(server) },
            makeTLS: {
                guard let tls else { throw BlobStoreError.remote(server, "https is not set up for this backend.") }
                return tls
            })
    }

    func send(_ request: HTTPRequest, maximumBody: Int) throws -> HTTPResponse {
        guard let url = URL(string: origin + request.path) else {
            throw BlobStoreError(.invalidArgument, "'\(origin + request.path)' is not a URL.")
        }
        let exchange = try client.start(
            HTTPClientRequest(method: request.method, url: url, headers: request.headers, body: request.body))
        let status = exchange.head.status
        // Only a success's body is used; the connection closes after the reply anyway.
        guard (200...299).contains(status) else {
            exchange.close()
            return HTTPResponse(status: status, body: Data())
        }
        return HTTPResponse(status: status, body: try exchange.readBody(maximum: maximumBody))
    }
}
