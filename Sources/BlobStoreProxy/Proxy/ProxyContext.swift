import BlobStore
import BlobStoreHTTP
import Synchronization

/// What every request handler of one proxy shares: its configuration, the cache, the origin
/// connections, the counters, the flights of collapsed requests and the access log.
final class ProxyContext: Sendable {
    let configuration: ProxyConfiguration
    let cache: HTTPCache
    let origins: OriginConnections
    let metrics = ProxyMetrics()
    let collapsing = RequestCollapsing()
    let log: AccessLog
    /// The keys being revalidated in the background (`stale-while-revalidate`), so that a burst
    /// of stale hits sends one conditional request.
    let revalidating = Mutex<Set<String>>([])
    /// Whether the proxy is stopping: responses then close their connections.
    let stopping = Atomic<Bool>(false)

    init(configuration: ProxyConfiguration, cache: HTTPCache, log: AccessLog) {
        self.configuration = configuration
        self.cache = cache
        self.origins = OriginConnections(timeout: configuration.originTimeout)
        self.log = log
    }
}
