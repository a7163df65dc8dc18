/// Sends a request and returns the reply, within the timeouts it was made with:
/// ``SocketHTTPTransport``, for `http://` and `https://`.
protocol HTTPTransport: Sendable {
    /// - Parameters:
    ///   - request: What to send.
    ///   - maximumBody: The largest body accepted; a larger one is an error.
    /// - Throws: ``BlobStoreError/Code/remote`` when the server is unreachable, too slow or
    ///   answers something that is not HTTP.
    func send(_ request: HTTPRequest, maximumBody: Int) throws -> HTTPResponse
}
