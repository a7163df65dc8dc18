import BlobStore
import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `https://` through Foundation's `URLSession`, which brings TLS. Its timeout covers the whole
/// request including the connection (URLSession has no separate connect timeout), so a server
/// that does not answer is given up after the operation timeout, not the connect timeout.
struct URLSessionHTTPTransport: HTTPTransport {
    /// The base URL's scheme, host and port, without credentials or path.
    let origin: URL
    let timeouts: RemoteTimeouts
    let server: String
    private let session: URLSession

    init(origin: URL, timeouts: RemoteTimeouts, server: String) {
        self.origin = origin
        self.timeouts = timeouts
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let seconds =
            Double(timeouts.operation.components.seconds)
            + Double(timeouts.operation.components.attoseconds) / 1e18
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        session = URLSession(configuration: configuration)
    }

    func send(_ request: HTTPRequest, maximumBody: Int) throws -> HTTPResponse {
        guard let url = URL(string: request.path, relativeTo: origin) else {
            throw BlobStoreError.remote(server, "cannot build a URL for \(request.path).")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = session.configuration.timeoutIntervalForRequest
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if request.method == "PUT" { urlRequest.httpBody = request.body }

        let outcome = Mutex<Result<HTTPResponse, BlobStoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let server = server
        let task = session.dataTask(with: urlRequest) { data, response, error in
            let result: Result<HTTPResponse, BlobStoreError>
            if let error {
                result = .failure(BlobStoreError.remote(server, error.localizedDescription))
            } else if let http = response as? HTTPURLResponse {
                let body = (200...299).contains(http.statusCode) ? data ?? Data() : Data()
                result =
                    body.count > maximumBody
                    ? .failure(BlobStoreError.remote(server, "a body of \(body.count) bytes is too large."))
                    : .success(HTTPResponse(status: http.statusCode, body: body))
            } else {
                result = .failure(BlobStoreError.remote(server, "the reply is not HTTP."))
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        task.resume()
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw BlobStoreError.remote(server, "the request ended without a reply.")
        }
        return try result.get()
    }
}
