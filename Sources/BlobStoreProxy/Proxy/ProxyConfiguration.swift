import Foundation

/// How `blobstore serve` listens, where it forwards, and the limits it holds clients and
/// origins to. docs/http.md, "The caching proxy", explains each choice.
public struct ProxyConfiguration: Sendable {
    /// The origin a reverse proxy forwards origin-form requests (`GET /path`) to: an `http` URL
    /// whose path, if any, prefixes every request's. `nil` for a forward proxy only.
    public var origin: URL?
    /// Whether absolute-form requests (`GET http://host/path`, as `HTTP_PROXY=` clients send)
    /// go to the host they name. Off by default: a reverse proxy then serves them from its
    /// origin, using their path.
    public var forwardProxy = false
    /// The address to listen on. Default `127.0.0.1`.
    public var host = "127.0.0.1"
    /// The port to listen on; 0 picks a free one (``ProxyServer/port``). Default 8080.
    public var port: UInt16 = 8080
    /// Where the metrics (Prometheus text format, `GET /metrics`) are served, on a listener of
    /// their own; `nil` for none.
    public var metricsHost: String? = nil
    /// The metrics port; 0 picks a free one (``ProxyServer/metricsPort``).
    public var metricsPort: UInt16 = 0
    /// The largest request head (request line and fields) accepted; larger is `431`. Default 32 KiB.
    public var maxHeaderBytes = 32 << 10
    /// The most request header fields accepted; more is `431`. Default 100.
    public var maxHeaderFields = 100
    /// How long a request head may take to arrive once it has begun; longer is `408`, so a
    /// client sending a byte at a time cannot hold a connection. Default 10 s.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a kept-alive client connection may wait for its next request. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// The longest wait for one read of a request body or one write to a client. Default 60 s.
    public var clientTimeout: Duration = .seconds(60)
    /// The longest wait to connect to an origin, and for each read from it. Default 60 s.
    public var originTimeout: Duration = .seconds(60)
    /// The most client connections served at once; a connection over it is answered `503`
    /// and closed. Default 1024.
    public var maxConnections = 1024
    /// The largest response body stored; a larger one is streamed to the client without being
    /// kept. Memory stays flat either way: a body over 1 MiB is kept in a spool file while it
    /// is received, and served from the store a piece at a time. Default 1 GiB.
    public var maxObjectBytes = 1 << 30
    /// How long concurrent requests for one URL wait for the first one's response (request
    /// collapsing) before they go to the origin themselves. Default 10 s.
    public var collapseTimeout: Duration = .seconds(10)
    /// How long a response without a validator is kept once stale, for requests that accept it
    /// (`max-stale`) (`HTTPCachePolicy/staleRetention`). Default one hour.
    public var staleRetention: TimeInterval = 3600
    /// The targeted cache-control field (RFC 9213) whose directives replace a response's
    /// `Cache-Control` for this proxy when present. Default `CDN-Cache-Control`; `nil` for none.
    public var targetedField: String? = "CDN-Cache-Control"
    /// How long a SIGTERM waits for the responses in flight to finish. Default 30 s.
    public var shutdownGrace: Duration = .seconds(30)
    /// The name in the `Via` and `Cache-Status` fields the proxy adds. Default `blobstore`.
    public var name = "blobstore"

    /// A configuration forwarding to `origin` (`nil` for a forward proxy only).
    public init(origin: URL?) {
        self.origin = origin
        self.forwardProxy = origin == nil
    }
}
