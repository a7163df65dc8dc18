import BlobStore
import BlobStoreNet
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends a `URLRequest` with the package's own HTTP/1.1 client (`HTTPClient`) and writes the
/// final response's body to a file as it arrives: the memory a download holds is one receive
/// buffer, whatever the body's size, and a disk slower than the network slows the server down
/// (the socket is not read until the last piece is written). Redirects are followed as
/// `URLSession` follows them.
///
/// Bodies are kept as the server sent them: no `Accept-Encoding` is added, and a body the
/// server encodes anyway is stored encoded, with its `Content-Encoding`.
struct FileDownloader: Sendable {
    let client: HTTPClient
    /// Sent with every request that does not carry the field itself (the session
    /// configuration's `httpAdditionalHeaders`).
    let additionalHeaders: [(name: String, value: String)]

    /// The most redirects followed before the request fails.
    static let maximumRedirects = 16

    /// A downloader whose connections and replies wait at most `timeout` (`URLSession`'s
    /// `timeoutIntervalForRequest`: the longest wait for the next bytes, not for the whole body).
    init(timeout: Duration, additionalHeaders: [(name: String, value: String)]) {
        client = HTTPClient(
            connecting: ConnectTimeouts(nameResolution: timeout, connect: timeout, handshake: timeout),
            reply: .idle(timeout), peer: Self.peer,
            makeTLS: { try TLSContext(caFile: nil, caFileOption: "SSL_CERT_FILE", code: .network) })
        self.additionalHeaders = additionalHeaders
    }

    /// Sends `request`, follows its redirects, and writes the final response's body to `file`,
    /// open for writing at `path`.
    ///
    /// - Throws: `BlobStoreError` with code `network` when a server cannot be reached in time or
    ///   answers something that is not HTTP/1.1, or a redirect leads nowhere; `io` when `file`
    ///   cannot be written.
    func download(_ request: URLRequest, into file: FileHandle, path: String) throws -> ReceivedResponse<Int> {
        guard var url = request.url else {
            throw BlobStoreError(.invalidArgument, "The request has no URL. Give it the URL to fetch.")
        }
        var method = (request.httpMethod ?? "GET").uppercased()
        var body = request.httpBody ?? Data()
        var headers = fields(of: request)
        for _ in 0...Self.maximumRedirects {
            let exchange = try client.start(HTTPClientRequest(method: method, url: url, headers: headers, body: body))
            let head = exchange.head
            if let next = redirect(head, from: url) {
                exchange.close()
                // RFC 9110 §15.4: 303 turns any method but HEAD into GET, and clients turn a
                // POST redirected by 301 or 302 into a GET too; the body goes with the method.
                if (head.status == 303 && method != "HEAD") || ([301, 302].contains(head.status) && method == "POST") {
                    method = "GET"
                    body = Data()
                    headers.removeAll { HTTPHeaders.isOne(of: ["Content-Type", "Content-Length"], $0.name) }
                }
                // Credentials are not sent to another origin.
                if next.host?.lowercased() != url.host?.lowercased() || next.port != url.port
                    || next.scheme?.lowercased() != url.scheme?.lowercased()
                {
                    headers.removeAll { HTTPHeaders.isOne(of: ["Authorization", "Cookie"], $0.name) }
                }
                url = next
                continue
            }
            let count = try write(exchange, to: file, path: path)
            let fields = head.fields.map { HTTPHeaders.Field(name: $0.name, value: $0.value) }
            return ReceivedResponse(status: head.status, headers: HTTPHeaders(fields), url: url, body: count)
        }
        throw BlobStoreError(
            .network,
            "The request to \(request.url?.absoluteString ?? "?") failed: more than \(Self.maximumRedirects) "
                + "redirects. Check the URL.")
    }

    /// The request's header fields, then the additional ones it does not set, then, for a URL
    /// with credentials (`http://user:password@host/`) and no `Authorization`, that field with
    /// them (Basic), as `URLSession` sends them.
    private func fields(of request: URLRequest) -> [(name: String, value: String)] {
        let own = HTTPHeaders(request.allHTTPHeaderFields ?? [:]).fields.map { (name: $0.name, value: $0.value) }
        var fields =
            own
            + additionalHeaders.filter { field in
                !own.contains { HTTPHeaders.sameName($0.name, field.name) }
            }
        if let url = request.url, let user = url.user(percentEncoded: false),
            !fields.contains(where: { HTTPHeaders.sameName($0.name, "Authorization") })
        {
            let credentials = Data("\(user):\(url.password(percentEncoded: false) ?? "")".utf8)
            fields.append((name: "Authorization", value: "Basic " + credentials.base64EncodedString()))
        }
        return fields
    }

    /// Where a redirect sends the request, or `nil` when `head` is not one to follow.
    private func redirect(_ head: HTTPResponseHead, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(head.status), let location = head["Location"],
            let next = URL(string: location, relativeTo: url)?.absoluteURL,
            ["http", "https"].contains(next.scheme?.lowercased() ?? "")
        else { return nil }
        return next
    }

    /// Writes the body of `exchange` to `file` (at `path`) a piece at a time.
    ///
    /// - Returns: The body's size.
    private func write(_ exchange: HTTPExchange, to file: FileHandle, path: String) throws -> Int {
        try exchange.readBody { piece in
            do {
                try file.write(contentsOf: piece)
            } catch {
                throw BlobStoreError(
                    .io, "Cannot write \(path): \(error.localizedDescription). Check the free space.", path: path)
            }
        }
    }

    /// A URL's server as errors name it: `The request to <url> failed: …`, code `network`; the
    /// URL without its credentials.
    private static func peer(_ url: URL) -> NetworkPeer {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.user = nil
        components?.password = nil
        let shown = components?.string ?? url.absoluteString
        return NetworkPeer(
            name: shown, label: "The request to \(shown) failed", code: .network,
            addressAdvice: "Check the URL and the network, then retry.",
            trustedCAs: "the system's CAs, or the file SSL_CERT_FILE names")
    }
}
