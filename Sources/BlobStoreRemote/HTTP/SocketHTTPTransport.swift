import BlobStore
import Foundation

/// A minimal HTTP/1.1 client for `http://` and `https://` over ``TCPConnection``, so that the
/// connect timeout, the TLS handshake's and the per-request deadline are exact. One connection per request (`Connection: close`);
/// bodies are read by `Content-Length`, `chunked` transfer coding, or to the end of the stream.
struct SocketHTTPTransport: HTTPTransport {
    /// The longest status line or header line, and the most header lines.
    static let maximumLineLength = 16 << 10
    static let maximumHeaderCount = 200

    let host: String
    let port: UInt16
    let timeouts: RemoteTimeouts
    /// The server, without credentials, for messages.
    let server: String
    /// For `https://`: the TLS settings, and the certificate must name ``host``; `nil` for
    /// `http://`.
    let tls: TLSContext?

    func send(_ request: HTTPRequest, maximumBody: Int) throws -> HTTPResponse {
        let connection = try TCPConnection(host: host, port: port, timeouts: timeouts, server: server, tls: tls)
        defer { connection.close() }
        connection.startOperation(timeout: timeouts.operation)
        var head = "\(request.method) \(request.path) HTTP/1.1\r\n"
        head += "Host: \(host.contains(":") ? "[\(host)]" : host):\(port)\r\n"
        head += "User-Agent: blobstore\r\nConnection: close\r\n"
        for (name, value) in request.headers { head += "\(name): \(value)\r\n" }
        if request.method == "PUT" || !request.body.isEmpty { head += "Content-Length: \(request.body.count)\r\n" }
        head += "\r\n"
        var message = Data(head.utf8)
        if request.body.count <= 64 << 10 {
            message.append(request.body)
            try connection.write(message)
        } else {
            try connection.write(message)
            try connection.write(request.body)
        }
        return try readResponse(connection, method: request.method, maximumBody: maximumBody)
    }

    // MARK: - Reading the response

    private func readResponse(_ connection: TCPConnection, method: String, maximumBody: Int) throws -> HTTPResponse {
        var status = try readStatus(connection)
        var headers = try readHeaders(connection)
        while (100...199).contains(status) {  // 100 Continue and other interim replies
            status = try readStatus(connection)
            headers = try readHeaders(connection)
        }
        // Only a success's body is used; the connection closes after the reply anyway, so the
        // body of an error page (nginx's 404 page, say) is not read.
        if method == "HEAD" || !(200...299).contains(status) || status == 204 {
            return HTTPResponse(status: status, body: Data())
        }
        if let coding = headers["transfer-encoding"], coding.lowercased() != "identity" {
            guard coding.lowercased() == "chunked" else {
                throw malformed("the transfer coding '\(coding.prefix(40))'")
            }
            return HTTPResponse(status: status, body: try readChunked(connection, maximumBody: maximumBody))
        }
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0 else { throw malformed("a bad Content-Length") }
            guard length <= maximumBody else { throw tooLarge(length, maximumBody) }
            return HTTPResponse(status: status, body: try connection.readExactly(length))
        }
        return HTTPResponse(status: status, body: try connection.readToEnd(maximum: maximumBody))
    }

    private func readStatus(_ connection: TCPConnection) throws -> Int {
        let line = String(decoding: try connection.readLine(maximum: Self.maximumLineLength), as: UTF8.self)
        let parts = line.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let status = Int(parts[1]) else {
            throw malformed("a bad status line")
        }
        return status
    }

    /// The header fields, names lowercased; a repeated name keeps its last value.
    private func readHeaders(_ connection: TCPConnection) throws -> [String: String] {
        var headers: [String: String] = [:]
        for _ in 0...Self.maximumHeaderCount {
            let line = String(decoding: try connection.readLine(maximum: Self.maximumLineLength), as: UTF8.self)
            if line.isEmpty { return headers }
            guard let colon = line.firstIndex(of: ":") else { throw malformed("a header line without ':'") }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        throw malformed("more than \(Self.maximumHeaderCount) header lines")
    }

    private func readChunked(_ connection: TCPConnection, maximumBody: Int) throws -> Data {
        var body = Data()
        while true {
            let line = String(decoding: try connection.readLine(maximum: Self.maximumLineLength), as: UTF8.self)
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0 else {
                throw malformed("a bad chunk size")
            }
            if size == 0 { break }
            guard size <= maximumBody - body.count else { throw tooLarge(body.count + size, maximumBody) }
            body.append(try connection.readExactly(size))
            guard try connection.readLine(maximum: 2).isEmpty else { throw malformed("a chunk without CRLF") }
        }
        for _ in 0...Self.maximumHeaderCount {  // trailer fields, then an empty line
            if try connection.readLine(maximum: Self.maximumLineLength).isEmpty { return body }
        }
        throw malformed("too many trailer lines")
    }

    private func malformed(_ what: String) -> BlobStoreError {
        BlobStoreError.remote(server, "the reply is not HTTP/1.1: \(what).")
    }

    private func tooLarge(_ size: Int, _ maximum: Int) -> BlobStoreError {
        BlobStoreError.remoteTooLarge(server, size: size, maximum: maximum)
    }
}
