import BlobStore
import BlobStoreCache
import BlobStoreProxy
import BlobStoreTestKit
import Foundation
import HTTPTestServer
import Testing

/// A proxy in this process, in front of the Python test server, on a store of its own in a
/// temporary directory; stopped by ``stop()``.
final class ProxyHarness: @unchecked Sendable {
    let origin: TestServer
    let server: ProxyServer
    let directory: TemporaryDirectory
    private let stopped = DispatchSemaphore(value: 0)

    /// A proxy for the test server with `configure`'s changes to the default configuration,
    /// writing its access log to `accessLog`.
    init(
        _ configure: (inout ProxyConfiguration) -> Void = { _ in },
        store storeConfiguration: BlobStore.Configuration = fast,
        accessLog: FileHandle? = nil
    ) throws {
        origin = try TestServer()
        directory = TemporaryDirectory()
        var configuration = ProxyConfiguration(origin: URL(string: "http://127.0.0.1:\(origin.port)")!)
        configuration.port = 0
        configuration.metricsHost = "127.0.0.1"
        configure(&configuration)
        let disk = try directory.store("store", storeConfiguration)
        server = try ProxyServer(
            configuration: configuration,
            store: CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 16 << 20), recheckInterval: .seconds(1)),
            accessLog: accessLog,
            usage: { (Int64(clamping: (try? disk.stats().storedBytes) ?? 0), (try? disk.stats().entries) ?? 0) })
        let (server, stopped) = (server, stopped)
        Thread.detachNewThread {
            server.run()
            stopped.signal()
        }
    }

    /// A new connection to the proxy.
    func client(timeout: Int = 30) throws -> RawClient { try RawClient(port: server.port, timeout: timeout) }

    /// `GET target` on a new connection, with `fields` (`Name: value` lines).
    func get(_ target: String, _ fields: [String] = [], method: String = "GET") throws -> RawResponse {
        let client = try client()
        try client.send(Self.request(method, target, fields))
        return try client.response(headOnly: method == "HEAD")
    }

    /// The bytes of a request with a Host field and `fields`.
    static func request(_ method: String, _ target: String, _ fields: [String] = [], body: String? = nil) -> String {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: proxy.test\r\n"
        for field in fields { text += field + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        return text + "\r\n" + (body ?? "")
    }

    /// The proxy's counter `name` (`blobstore_proxy_<name>_total` on its metrics port).
    func counter(_ name: String) throws -> Int {
        let metrics = try RawClient(port: try #require(server.metricsPort))
        try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let prefix = "blobstore_proxy_\(name)_total "
        let line = try #require(try metrics.response().text.split(separator: "\n").first { $0.hasPrefix(prefix) })
        return try #require(Int(line.dropFirst(prefix.count)))
    }

    /// How many requests the origin received for `target`.
    func originRequests(_ target: String) async throws -> Int { try await origin.counts(target).requests }

    func stop() {
        server.shutdown()
        stopped.wait()
        origin.stop()
        directory.cleanup()
    }
}

/// Runs `body` with a started proxy, stopped afterwards.
func withProxy<R>(
    _ configure: (inout ProxyConfiguration) -> Void = { _ in }, store: BlobStore.Configuration = fast,
    _ body: (ProxyHarness) async throws -> R
) async throws -> R {
    let harness = try ProxyHarness(configure, store: store)
    defer { harness.stop() }
    return try await body(harness)
}
