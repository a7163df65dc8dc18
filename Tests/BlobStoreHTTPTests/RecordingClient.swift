import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLProtocolClient` that records the name of every call it receives.
final class RecordingClient: NSObject, URLProtocolClient, Sendable {
    private let recorded = Mutex<[String]>([])

    /// The calls so far, in order.
    var calls: [String] { recorded.withLock { $0 } }

    private func record(_ call: String) {
        recorded.withLock { $0.append(call) }
    }

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        record("wasRedirected")
    }

    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {
        record("cachedResponseIsValid")
    }

    func urlProtocol(
        _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
    ) {
        record("didReceive")
    }

    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        record("didLoad")
    }

    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) {
        record("didFinishLoading")
    }

    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
        record("didFail")
    }

    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {
        record("didReceiveChallenge")
    }

    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {
        record("didCancelChallenge")
    }
}
