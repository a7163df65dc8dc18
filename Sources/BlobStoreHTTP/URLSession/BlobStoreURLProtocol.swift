import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLProtocol` that answers a stock `URLSession`'s `http` and `https` requests through an
/// ``HTTPCache``.
///
/// On Linux, FoundationNetworking's `URLSession` asks a `URLCache` for responses but never
/// stores one, so a `URLCache` subclass caches nothing there; a protocol class does work.
/// Register the cache once, then add the class to a session's configuration:
///
/// ```swift
/// BlobStoreURLProtocol.register(cache)
/// let configuration = URLSessionConfiguration.default
/// configuration.protocolClasses = [BlobStoreURLProtocol.self] + (configuration.protocolClasses ?? [])
/// let session = URLSession(configuration: configuration)
/// let (data, response) = try await session.data(from: url)  // the second time, from the cache
/// ```
///
/// The session's own `URLCache` is bypassed (the response is reported with
/// `.notAllowed` storage). Without a registered cache, the class handles no request.
/// ``lastOutcome(for:)`` tells how the latest request for a URL was answered.
public final class BlobStoreURLProtocol: URLProtocol {
    private static let registered = Mutex<HTTPCache?>(nil)
    private static let outcomes = Mutex<[URL: HTTPCacheOutcome]>([:])
    private let loading = Mutex<Task<Void, Never>?>(nil)

    /// Makes `cache` answer the requests of every session that registers this class; `nil`
    /// stops handling requests.
    public static func register(_ cache: HTTPCache?) {
        registered.withLock { $0 = cache }
    }

    /// How the latest request for `url` handled by this class was answered, or `nil`.
    public static func lastOutcome(for url: URL) -> HTTPCacheOutcome? {
        outcomes.withLock { $0[url] }
    }

    /// Whether the class handles `request`: a `GET` or `HEAD` of an `http` or `https` URL while a
    /// cache is registered. Other methods carry a body that `URLSession` does not hand to a
    /// protocol class, so they go to the network as usual (and do not invalidate what is stored;
    /// ``HTTPCache/data(for:)`` does).
    override public class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return false
        }
        guard ["GET", "HEAD"].contains((request.httpMethod ?? "GET").uppercased()) else { return false }
        return registered.withLock { $0 != nil }
    }

    /// The request unchanged.
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Answers the request through the registered cache, on a task of its own.
    override public func startLoading() {
        guard let cache = Self.registered.withLock({ $0 }) else {
            client?.urlProtocol(self, didFailWithError: URLError(.cancelled))
            return
        }
        let handle = UncheckedProtocol(self)
        let request = self.request
        loading.withLock {
            $0 = Task {
                do {
                    let result = try await cache.data(for: request)
                    Self.outcomes.withLock { $0[result.url] = result.outcome }
                    handle.deliver(result)
                } catch {
                    handle.fail(error)
                }
            }
        }
    }

    /// Cancels the request if it is still running.
    override public func stopLoading() {
        loading.withLock { $0?.cancel() }
    }
}

/// Carries a `URLProtocol` into the task that answers it. `URLProtocol` is not `Sendable`; the
/// client is called from that one task only, as URLSession allows.
private struct UncheckedProtocol: @unchecked Sendable {
    let instance: URLProtocol

    init(_ instance: URLProtocol) { self.instance = instance }

    func deliver(_ result: HTTPCacheResult) {
        guard let response = result.httpResponse else {
            fail(URLError(.badServerResponse))
            return
        }
        instance.client?.urlProtocol(instance, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !result.body.isEmpty { instance.client?.urlProtocol(instance, didLoad: result.body) }
        instance.client?.urlProtocolDidFinishLoading(instance)
    }

    func fail(_ error: any Error) {
        instance.client?.urlProtocol(instance, didFailWithError: error)
    }
}
