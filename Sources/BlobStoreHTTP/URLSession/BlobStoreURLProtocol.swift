import BlobStore
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
/// ``lastOutcome(for:)`` tells how the latest request for a URL was answered. A failure reaches
/// the session as a `URLError`.
public final class BlobStoreURLProtocol: URLProtocol {
    /// How many URLs ``lastOutcome(for:)`` remembers; older ones are forgotten.
    public static let rememberedOutcomes = 64

    private static let registered = Mutex<HTTPCache?>(nil)
    /// The latest outcomes, oldest first, one per URL, at most ``rememberedOutcomes``.
    private static let outcomes = Mutex<[(url: URL, outcome: HTTPCacheOutcome)]>([])
    /// The task answering the request, and whether `stopLoading` was called: then the client
    /// hears nothing more.
    private let loading = Mutex<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

    /// Makes `cache` answer the requests of every session that registers this class; `nil`
    /// stops handling requests.
    public static func register(_ cache: HTTPCache?) {
        registered.withLock { $0 = cache }
    }

    /// How the latest request for `url` handled by this class was answered, or `nil` (also once
    /// ``rememberedOutcomes`` other URLs were requested since).
    public static func lastOutcome(for url: URL) -> HTTPCacheOutcome? {
        outcomes.withLock { $0.last { $0.url == url }?.outcome }
    }

    /// Remembers `outcome` as the latest for `url`, forgetting the oldest URL beyond the limit.
    private static func remember(_ outcome: HTTPCacheOutcome, for url: URL) {
        outcomes.withLock { recent in
            recent.removeAll { $0.url == url }
            recent.append((url, outcome))
            if recent.count > rememberedOutcomes { recent.removeFirst(recent.count - rememberedOutcomes) }
        }
    }

    /// Whether `stopLoading` was called.
    fileprivate var isStopped: Bool { loading.withLock { $0.stopped } }

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
        loading.withLock { state in
            guard !state.stopped else { return }
            state.task = Task {
                do {
                    let result = try await cache.data(for: request)
                    Self.remember(result.outcome, for: result.url)
                    handle.deliver(result)
                } catch {
                    handle.fail(Self.urlError(for: error))
                }
            }
        }
    }

    /// Cancels the request if it is still running; the client hears nothing more from it.
    override public func stopLoading() {
        loading.withLock { state in
            state.stopped = true
            state.task?.cancel()
        }
    }

    /// `error` as the `URLError` a session's caller expects: a ``BlobStoreError`` with code
    /// `network` is `networkConnectionLost`, any other failure `resourceUnavailable`; both carry
    /// the original as `NSUnderlyingErrorKey` and its description.
    static func urlError(for error: any Error) -> URLError {
        if let error = error as? URLError { return error }
        let isNetwork = (error as? BlobStoreError)?.code == .network
        return URLError(
            isNetwork ? .networkConnectionLost : .resourceUnavailable,
            userInfo: [NSUnderlyingErrorKey: error, NSLocalizedDescriptionKey: "\(error)"])
    }
}

/// Carries a ``BlobStoreURLProtocol`` into the task that answers it. `URLProtocol` is not
/// `Sendable`; the client is called from that one task only, as URLSession allows, and not at
/// all once the request was stopped.
private struct UncheckedProtocol: @unchecked Sendable {
    let instance: BlobStoreURLProtocol

    init(_ instance: BlobStoreURLProtocol) { self.instance = instance }

    func deliver(_ result: HTTPCacheResult) {
        guard let response = result.httpResponse else {
            fail(URLError(.badServerResponse))
            return
        }
        guard !instance.isStopped else { return }
        instance.client?.urlProtocol(instance, didReceive: response, cacheStoragePolicy: .notAllowed)
        if !result.body.isEmpty {
            guard !instance.isStopped else { return }
            instance.client?.urlProtocol(instance, didLoad: result.body)
        }
        guard !instance.isStopped else { return }
        instance.client?.urlProtocolDidFinishLoading(instance)
    }

    func fail(_ error: URLError) {
        guard !instance.isStopped else { return }
        instance.client?.urlProtocol(instance, didFailWithError: error)
    }
}
