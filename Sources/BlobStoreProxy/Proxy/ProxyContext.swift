@_spi(BlobStorePackage) import BlobStore
import BlobStoreCache
import BlobStoreHTTP
import Foundation
import Synchronization

/// What every request handler of one proxy shares: its configuration, the cache, the counters,
/// the flights of collapsed requests and the access log (the idle origin connections are each
/// event loop's own, ``EventLoop/origins``).
final class ProxyContext: Sendable {
    let configuration: ProxyConfiguration
    let cache: HTTPCache
    let metrics = ProxyMetrics()
    let collapsing = RequestCollapsing()
    let log: AccessLog
    /// The proxy's member of `Via` (`1.1 <name>`), made once.
    let viaMember: String
    /// The configuration's header and idle timeouts in nanoseconds, converted once: a client's
    /// deadline is made at each request (a `Duration` is 128-bit arithmetic).
    let clientWaitNanoseconds: (header: Int64, idle: Int64)
    /// The parts of the configured origin's URL, taken from it once.
    let origin: OriginBase?
    /// The keys being revalidated in the background (`stale-while-revalidate`), so that a burst
    /// of stale hits sends one conditional request.
    let revalidating = Mutex<Set<String>>([])
    /// Whether the proxy is stopping: responses then close their connections.
    let stopping = Atomic<Bool>(false)
    /// The forward targets of request targets seen lately (``target(of:)``): one memo for every
    /// event loop, so that its memory does not grow with the number of cores. Hits going round
    /// up to 16,384 URLs find every target here, fewer as the count nears 32,768 (a generation
    /// turns every 16,384 new targets); a target of a short URL is about 500-800 bytes (its URL,
    /// key and strings), so the memo holds at most some 25 MB.
    let targets = BoundedMemo<String, ForwardTarget>(capacity: 16384)
    /// The forward targets of request targets longer than ``longestShort`` bytes, seen lately: a
    /// target keeps about four copies of its text (the memo's key, the target sent, the URL, the
    /// entry key), so that 32,768 of the longest head allowed would hold gigabytes; 128 hold at
    /// most 16 MB. They are remembered still, since a target carries its URL's hit-for-miss mark
    /// (``ForwardTarget/isUncacheable(at:)``): long signed URLs are often uncacheable.
    let longTargets = BoundedMemo<String, ForwardTarget>(capacity: 64)
    /// The longest request target remembered in ``targets``, in bytes.
    static let longestShort = 1024

    /// Creates an empty file for a response body too large to keep in memory while it is
    /// received (``KeptBody``): in the disk store's `tmp/` when the cache is on one, else in the
    /// system's temporary directory.
    let makeSpoolFile: @Sendable () throws -> URL

    init(configuration: ProxyConfiguration, cache: HTTPCache, log: AccessLog) {
        self.configuration = configuration
        viaMember = "1.1 \(configuration.name)"
        clientWaitNanoseconds = (
            MonotonicInstant.nanoseconds(in: configuration.headerTimeout),
            MonotonicInstant.nanoseconds(in: configuration.idleTimeout)
        )
        origin = configuration.origin.map(OriginBase.init)
        self.cache = cache
        self.log = log
        if let disk = (cache.store as? CachedStore)?.disk ?? (cache.store as? BlobStore) {
            self.makeSpoolFile = { try disk.makeSpoolFile() }
        } else {
            self.makeSpoolFile = {
                let url = URL(fileURLWithPath: NSTemporaryDirectory())
                    .appendingPathComponent("blobstore-proxy-\(UUID().uuidString)")
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw BlobStoreError(
                        .io, "Cannot create \(url.path). Check that the temporary directory is writable.",
                        path: url.path)
                }
                return url
            }
        }
    }

    /// Where `request` goes (`ForwardTarget.of(_:origin:forwardProxy:)` with this proxy's
    /// origin and mode), remembered by request target in ``targets`` (or ``longTargets``, for one
    /// over ``longestShort`` bytes): parsing a URL was a tenth of a cached hit's work in user
    /// space.
    ///
    /// - Throws: ``Rejection`` as `ForwardTarget.of(_:origin:forwardProxy:)` does.
    func target(of request: RequestHead) throws(Rejection) -> ForwardTarget {
        let (origin, forwardProxy) = (origin, configuration.forwardProxy)
        let memo = request.target.utf8.count <= Self.longestShort ? targets : longTargets
        if request.method != "CONNECT",
            let known = memo.value(
                for: request.target, { _ in try? ForwardTarget.of(request, origin: origin, forwardProxy: forwardProxy) }
            )
        {
            return known
        }
        return try ForwardTarget.of(request, origin: origin, forwardProxy: forwardProxy)
    }
}
