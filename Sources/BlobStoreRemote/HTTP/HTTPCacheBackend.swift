import BlobStore
import BlobStoreNet
import Foundation

/// An HTTP content-addressed cache as Bazel's remote cache protocol defines it:
/// `GET`/`HEAD`/`PUT <base>/cas/<sha256>` for blobs and `<base>/ac/<sha256 of the key>` for
/// records. nginx with its WebDAV module (`dav_methods PUT DELETE; create_full_put_path on;`)
/// and bazel-remote (with `--disable_http_ac_validation`, since the records are not Bazel
/// `ActionResult`s) serve it unchanged.
///
/// Requests go through a small HTTP/1.1 client on a socket with exact timeouts; `https://` adds
/// TLS with the server's certificate verified (``RemoteTLS``, docs/remote.md).
public final class HTTPCacheBackend: RemoteBackend {
    /// The base URL, without credentials.
    public let baseURL: URL
    /// The `Authorization` sent with every request.
    public let authentication: HTTPAuthentication
    /// The connect and per-request timeouts.
    public let timeouts: RemoteTimeouts
    /// The CAs trusted for an `https://` server.
    public let tls: RemoteTLS
    private let basePath: String
    private let transport: any HTTPTransport

    /// - Parameters:
    ///   - baseURL: `http://host[:port][/path]` or `https://…`. Credentials in the URL
    ///     (`http://user:password@host`) become ``HTTPAuthentication/basic(user:password:)``
    ///     unless `authentication` is given.
    ///   - authentication: The credentials; `nil` takes them from the URL, if any.
    ///   - timeouts: The connect and per-request timeouts; the TLS handshake of `https://` is
    ///     bounded by the per-request timeout.
    ///   - tls: The CAs trusted for an `https://` server (unused for `http://`).
    /// - Throws: `BlobStoreError` with code `invalidArgument` for a URL that is not `http` or `https`
    ///   or has no host, or a port outside 1...65535; for a bearer token that is not `token68`; for
    ///   a CA file that cannot be read.
    public init(
        baseURL: URL, authentication: HTTPAuthentication? = nil, timeouts: RemoteTimeouts = RemoteTimeouts(),
        tls: RemoteTLS = RemoteTLS()
    ) throws {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host, !host.isEmpty
        else {
            throw Self.invalid(baseURL, "is not http://HOST[:PORT][/PATH] or https://…")
        }
        let urlCredentials = components.user.map {
            HTTPAuthentication.basic(user: $0, password: components.password ?? "")
        }
        if case .bearer(let token) = authentication, !HTTPAuthentication.isToken68(token) {
            throw BlobStoreError(
                .invalidArgument,
                "The bearer token (BLOBSTORE_REMOTE_TOKEN) may hold only letters, digits, -._~+/ and trailing =.")
        }
        self.authentication = authentication ?? urlCredentials ?? .none
        components.user = nil
        components.password = nil
        components.query = nil
        components.fragment = nil
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        components.percentEncodedPath = ""
        let defaultPort: UInt16 = scheme == "https" ? 443 : 80
        let port = components.port.map { UInt16(exactly: $0) ?? 0 } ?? defaultPort
        guard port > 0 else { throw Self.invalid(baseURL, "has a port that is not 1 to 65535") }
        guard let origin = components.url else { throw Self.invalid(baseURL, "is invalid") }
        self.baseURL = URL(string: origin.absoluteString + path) ?? origin
        self.timeouts = timeouts
        self.tls = tls
        transport = SocketHTTPTransport(
            host: host, port: port, timeouts: timeouts, server: self.baseURL.absoluteString,
            tls: scheme == "https" ? try TLSContext(tls) : nil)
    }

    /// The base URL, without credentials.
    public var name: String { baseURL.absoluteString }

    /// No limit of its own: the server answers `413` to what it refuses.
    public var maximumValueSize: Int { Int.max }

    // MARK: - RemoteBackend

    /// `HEAD <base>/cas/<hex>`: 200 is `true`, 404 `false`.
    public func containsBlob(_ digest: SHA256Digest) throws -> Bool {
        try get("HEAD", "cas", digest, maximumSize: 0) != nil
    }

    /// `GET <base>/cas/<hex>`: the body on 200, `nil` on 404.
    public func blob(_ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get("GET", "cas", digest, maximumSize: maximumSize)
    }

    /// `PUT <base>/cas/<hex>`: 200, 201 or 204 is success.
    public func putBlob(_ data: Data, digest: SHA256Digest) throws {
        try put("cas", digest, data, contentType: "application/octet-stream")
    }

    /// `GET <base>/ac/<hex>`: the body on 200, `nil` on 404.
    public func record(_ keyDigest: SHA256Digest, maximumSize: Int) throws -> Data? {
        try get("GET", "ac", keyDigest, maximumSize: maximumSize)
    }

    /// `PUT <base>/ac/<hex>`: 200, 201 or 204 is success.
    public func putRecord(_ record: Data, keyDigest: SHA256Digest) throws {
        try put("ac", keyDigest, record, contentType: "application/json")
    }

    /// `DELETE <base>/ac/<hex>`: 200, 202, 204 and 404 are success.
    public func removeRecord(_ keyDigest: SHA256Digest) throws {
        let response = try transport.send(request("DELETE", "ac", keyDigest, body: Data()), maximumBody: 64 << 10)
        guard [200, 202, 204, 404].contains(response.status) else { throw failure("DELETE", "ac", response.status) }
    }

    // MARK: - Requests

    /// An ``BlobStoreError/Code/invalidArgument`` quoting `url` without its credentials.
    private static func invalid(_ url: URL, _ problem: String) -> BlobStoreError {
        let shown = RemoteURL.redacted(url.absoluteString).prefix(200)
        return BlobStoreError(.invalidArgument, "The remote URL '\(shown)' \(problem).")
    }

    /// `GET` or `HEAD`: the body on 200, `nil` on 404 (and 410), an error otherwise.
    private func get(_ method: String, _ kind: String, _ digest: SHA256Digest, maximumSize: Int) throws -> Data? {
        let response = try transport.send(request(method, kind, digest, body: Data()), maximumBody: maximumSize)
        switch response.status {
        case 200: return response.body
        case 404, 410: return nil
        default: throw failure(method, kind, response.status)
        }
    }

    /// `PUT`: 200, 201 or 204 is success; anything else an error.
    private func put(_ kind: String, _ digest: SHA256Digest, _ body: Data, contentType: String) throws {
        var request = request("PUT", kind, digest, body: body)
        request.headers.append((name: "Content-Type", value: contentType))
        let response = try transport.send(request, maximumBody: 64 << 10)
        guard [200, 201, 204].contains(response.status) else { throw failure("PUT", kind, response.status) }
    }

    private func request(_ method: String, _ kind: String, _ digest: SHA256Digest, body: Data) -> HTTPRequest {
        var headers: [(name: String, value: String)] = []
        if let value = authentication.headerValue { headers.append((name: "Authorization", value: value)) }
        return HTTPRequest(method: method, path: "\(basePath)/\(kind)/\(digest.hex)", headers: headers, body: body)
    }

    private func failure(_ method: String, _ kind: String, _ status: Int) -> BlobStoreError {
        let hint: String
        switch status {
        case 401, 403: hint = " Check the credentials (user:password in the URL, or BLOBSTORE_REMOTE_TOKEN)."
        case 405: hint = " The server does not allow this method: for nginx, add 'dav_methods PUT DELETE;'."
        case 413: hint = " The server refused the size: for nginx, set 'client_max_body_size 0;'."
        default: hint = ""
        }
        return BlobStoreError.remote(name, "\(method) /\(kind)/ answered HTTP \(status).\(hint)")
    }
}
