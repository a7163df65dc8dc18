import BlobStore
import Dispatch
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `https://` through Foundation's `URLSession`, which brings TLS, with the same bounds as
/// ``SocketHTTPTransport``:
///
/// - a body larger than `maximumBody` is refused as soon as its `Content-Length` or the bytes
///   received so far exceed it (the task is cancelled), never buffered whole;
/// - redirects are not followed (a `3xx` is the answer, and an error to ``HTTPCacheBackend``), so
///   `Authorization` never goes to another server or over plain HTTP;
/// - the caller waits at most the operation timeout and one second, then the task is cancelled.
///
/// URLSession has no separate connect timeout: its timeout covers the whole request including
/// the connection, so a server that does not answer is given up after the operation timeout,
/// not the connect timeout. swift-corelibs-foundation arms its timer with whole seconds
/// (`Int(timeoutInterval) * 1000` ms), so the operation timeout is rounded **up** to whole
/// seconds here (250 ms waits 1 s) rather than truncated to no timeout at all.
final class URLSessionHTTPTransport: HTTPTransport {
    /// The base URL's scheme, host and port, without credentials or path.
    let origin: URL
    let timeouts: RemoteTimeouts
    let server: String
    private let session: URLSession
    private let delegate: Delegate

    init(origin: URL, timeouts: RemoteTimeouts, server: String) {
        self.origin = origin
        self.timeouts = timeouts
        self.server = server
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let seconds = Self.wholeSeconds(timeouts.operation)
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        delegate = Delegate(server: server)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit { session.finishTasksAndInvalidate() }

    /// `duration` rounded up to whole seconds, at least 1.
    static func wholeSeconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(max(1, seconds + (attoseconds > 0 ? 1 : 0)))
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

        let task = session.dataTask(with: urlRequest)
        let exchange = Exchange(maximumBody: maximumBody)
        delegate.exchanges.withLock { $0[task.taskIdentifier] = exchange }
        defer { _ = delegate.exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) } }
        task.resume()
        let waited = urlRequest.timeoutInterval + 1
        guard exchange.done.wait(timeout: .now() + waited) == .success else {
            task.cancel()
            throw BlobStoreError.remote(server, "no answer within \(Int(waited)) s.", errno: ETIMEDOUT)
        }
        guard let result = exchange.state.withLock({ $0.result }) else {
            throw BlobStoreError.remote(server, "the request ended without a reply.")
        }
        return try result.get()
    }

    // MARK: - The delegate

    /// One request in flight: its bound, the body so far, and the outcome.
    private final class Exchange: Sendable {
        let maximumBody: Int
        let done = DispatchSemaphore(value: 0)
        let state = Mutex<(body: Data, result: Result<HTTPResponse, BlobStoreError>?)>((Data(), nil))

        init(maximumBody: Int) { self.maximumBody = maximumBody }

        /// Records the first outcome; later ones (the cancellation that follows a refusal) are
        /// ignored.
        func finish(_ result: Result<HTTPResponse, BlobStoreError>) {
            let first = state.withLock { state in
                guard state.result == nil else { return false }
                state.result = result
                return true
            }
            if first { done.signal() }
        }
    }

    /// Enforces the bounds task by task and refuses redirects.
    private final class Delegate: NSObject, URLSessionDataDelegate, Sendable {
        let server: String
        let exchanges = Mutex<[Int: Exchange]>([:])

        init(server: String) { self.server = server }

        private func exchange(_ task: URLSessionTask) -> Exchange? {
            exchanges.withLock { $0[task.taskIdentifier] }
        }

        private func tooLarge(_ size: Int64, _ maximum: Int) -> BlobStoreError {
            BlobStoreError.remoteTooLarge(server, size: size, maximum: maximum, orMore: true)
        }

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)  // the 3xx itself is the answer
        }

        func urlSession(
            _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
            completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
        ) {
            guard let exchange = exchange(dataTask) else { return completionHandler(.cancel) }
            guard let http = response as? HTTPURLResponse else {
                exchange.finish(.failure(BlobStoreError.remote(server, "the reply is not HTTP.")))
                return completionHandler(.cancel)
            }
            guard (200...299).contains(http.statusCode) else {
                // Only a success's body is used, as with the socket transport.
                exchange.finish(.success(HTTPResponse(status: http.statusCode, body: Data())))
                return completionHandler(.cancel)
            }
            if http.expectedContentLength > exchange.maximumBody {
                exchange.finish(.failure(tooLarge(http.expectedContentLength, exchange.maximumBody)))
                return completionHandler(.cancel)
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            guard let exchange = exchange(dataTask) else { return dataTask.cancel() }
            let total = exchange.state.withLock { state in
                let total = state.body.count + data.count
                if total <= exchange.maximumBody { state.body.append(data) }
                return total
            }
            if total > exchange.maximumBody {
                exchange.finish(.failure(tooLarge(Int64(total), exchange.maximumBody)))
                dataTask.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let exchange = exchange(task) else { return }
            if let error {
                exchange.finish(.failure(BlobStoreError.remote(server, error.localizedDescription)))
            } else if let http = task.response as? HTTPURLResponse {
                let body = (200...299).contains(http.statusCode) ? exchange.state.withLock { $0.body } : Data()
                exchange.finish(.success(HTTPResponse(status: http.statusCode, body: body)))
            } else {
                exchange.finish(.failure(BlobStoreError.remote(server, "the reply is not HTTP.")))
            }
        }
    }
}
