import Synchronization

/// The proxy's counters since it started, served in the Prometheus text format on the metrics
/// listener.
final class ProxyMetrics: Sendable {
    /// Requests answered, by any means.
    let requests = Atomic<Int>(0)
    /// Requests answered from a stored response without asking the origin (fresh, or stale as
    /// allowed).
    let hits = Atomic<Int>(0)
    /// Requests forwarded to the origin with nothing usable stored.
    let misses = Atomic<Int>(0)
    /// Conditional requests sent to the origin for a stored response.
    let revalidations = Atomic<Int>(0)
    /// Revalidations the origin answered with `304`.
    let notModified = Atomic<Int>(0)
    /// Requests that waited for another's response to the same URL (request collapsing).
    let collapsed = Atomic<Int>(0)
    /// Responses stored.
    let stored = Atomic<Int>(0)
    /// Requests refused before they reached the origin (malformed, too large, too slow).
    let rejected = Atomic<Int>(0)
    /// Requests the origin could not answer (502, 504).
    let originErrors = Atomic<Int>(0)
    /// Body bytes sent to clients from stored responses.
    let bytesFromCache = Atomic<Int>(0)
    /// Body bytes received from origins.
    let bytesFromOrigin = Atomic<Int>(0)
    /// Client connections open now.
    let connections = Atomic<Int>(0)

    /// The counters as Prometheus text, with `storeBytes` (the store's size on disk) and
    /// `storeEntries` as gauges.
    func text(storeBytes: Int64, storeEntries: Int) -> String {
        let counters: [(String, String, Int)] = [
            ("requests", "Requests answered.", requests.load(ordering: .relaxed)),
            ("hits", "Requests answered from the cache without asking the origin.", hits.load(ordering: .relaxed)),
            ("misses", "Requests forwarded with nothing usable stored.", misses.load(ordering: .relaxed)),
            (
                "revalidations", "Conditional requests sent for stored responses.",
                revalidations.load(ordering: .relaxed)
            ),
            ("not_modified", "Revalidations answered 304.", notModified.load(ordering: .relaxed)),
            (
                "collapsed", "Requests that waited for another's response to the same URL.",
                collapsed.load(ordering: .relaxed)
            ),
            ("stored", "Responses stored.", stored.load(ordering: .relaxed)),
            ("rejected", "Requests refused as malformed, too large or too slow.", rejected.load(ordering: .relaxed)),
            ("origin_errors", "Requests the origin could not answer.", originErrors.load(ordering: .relaxed)),
            ("cache_bytes", "Body bytes sent from stored responses.", bytesFromCache.load(ordering: .relaxed)),
            ("origin_bytes", "Body bytes received from origins.", bytesFromOrigin.load(ordering: .relaxed)),
        ]
        var text = ""
        for (name, help, value) in counters {
            text += "# HELP blobstore_proxy_\(name)_total \(help)\n# TYPE blobstore_proxy_\(name)_total counter\n"
            text += "blobstore_proxy_\(name)_total \(value)\n"
        }
        let gauges: [(String, String, Int64)] = [
            ("connections", "Client connections open.", Int64(connections.load(ordering: .relaxed))),
            ("store_bytes", "Bytes the store occupies on disk.", storeBytes),
            ("store_entries", "Entries in the store.", Int64(storeEntries)),
        ]
        for (name, help, value) in gauges {
            text += "# HELP blobstore_proxy_\(name) \(help)\n# TYPE blobstore_proxy_\(name) gauge\n"
            text += "blobstore_proxy_\(name) \(value)\n"
        }
        return text
    }
}
