import Foundation

/// The options of `serve`.
public struct ServeOptions: Equatable, Sendable {
    /// `--origin <url>`: the origin of the reverse proxy; `nil` with `--forward-proxy` only.
    public var origin: String?
    /// `--listen <host:port>`. Default `127.0.0.1:8080`.
    public var listenHost = "127.0.0.1"
    public var listenPort: UInt16 = 8080
    /// `--forward-proxy`: absolute-form requests go to the host they name.
    public var forwardProxy = false
    /// `--metrics <host:port>`: where `GET /metrics` is served; `nil` for nowhere.
    public var metricsHost: String?
    public var metricsPort: UInt16 = 0
    /// `--memory <size>`: the memory tier's size. Default 64 MiB.
    public var memoryBytes: UInt64 = 64 << 20
    /// `--max-object-size <size>`: the largest body stored. Default 16 MiB.
    public var maxObjectBytes: UInt64 = 16 << 20
    /// `--max-connections <n>`. Default 1024.
    public var maxConnections = 1024
    /// `--min-disk-lifetime <duration>`: responses fresh for less stay in memory. Default 0.
    public var minimumDiskLifetime: Duration = .zero
    /// `--header-timeout`, `--idle-timeout`, `--origin-timeout`.
    public var headerTimeout: Duration = .seconds(10)
    public var idleTimeout: Duration = .seconds(60)
    public var originTimeout: Duration = .seconds(60)
    /// `--access-log <file>`: `nil` is standard error (nothing with `-q`).
    public var accessLog: String?

    public init() {}
}
