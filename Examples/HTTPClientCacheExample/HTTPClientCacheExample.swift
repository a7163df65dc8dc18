import BlobStore
import BlobStoreCache
import BlobStoreHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An HTTP client cache for a stock `URLSession`: an `HTTPCache` over a `CachedStore` (a memory
/// tier in front of a disk store), registered with `BlobStoreURLProtocol`. It fetches a URL
/// twice through the session and prints how each fetch was answered: the first is a miss, the
/// second a fresh hit when the response may be cached and is still fresh.
///
/// `swift run HTTPClientCacheExample URL [DIR]`: the store is in DIR, else in a new temporary
/// directory removed at the end.
@main
struct HTTPClientCacheExample {
    static let usage = "Usage: HTTPClientCacheExample URL [DIR]"

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("-h") || arguments.contains("--help") {
            print("Fetches URL twice through a URLSession whose responses an HTTP cache in DIR keeps")
            print("(default: a temporary directory), and says how each fetch was answered.")
            print(usage)
            return
        }
        guard (1...2).contains(arguments.count), let url = URL(string: arguments[0]),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else {
            let problem =
                arguments.isEmpty ? "No URL given." : "Give one http:// or https:// URL, then an optional DIR."
            FileHandle.standardError.write(Data("Error: \(problem)\n\(usage)\n".utf8))
            exit(64)
        }
        do {
            if arguments.count == 2 {
                try await fetchTwice(url, storeAt: arguments[1])
            } else {
                let scratch = FileManager.default.temporaryDirectory
                    .appendingPathComponent("http-client-cache-example-" + UUID().uuidString)
                // 0700: the store refuses a directory that other users may write.
                try FileManager.default.createDirectory(
                    at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                defer { try? FileManager.default.removeItem(at: scratch) }
                try await fetchTwice(url, storeAt: scratch.appendingPathComponent("store").path)
            }
        } catch {
            FileHandle.standardError.write(Data("Error: \(error.localizedDescription)\n".utf8))
            exit(1)
        }
    }

    /// Fetches `url` twice through a session whose responses the cache in `directory` keeps.
    static func fetchTwice(_ url: URL, storeAt directory: String) async throws {
        let disk = try BlobStore(at: directory)
        defer { try? disk.close() }
        let cache = HTTPCache(store: CachedStore(disk: disk, memory: try MemoryTier(maxBytes: 32 << 20)))
        // FoundationNetworking's URLSession never stores into a URLCache: a protocol class caches.
        BlobStoreURLProtocol.register(cache)
        defer { BlobStoreURLProtocol.register(nil) }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [BlobStoreURLProtocol.self] + (configuration.protocolClasses ?? [])
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        print("store: \(directory)")
        for attempt in 1...2 {
            let start = ContinuousClock.now
            let (body, response) = try await session.data(from: url)
            let milliseconds = (ContinuousClock.now - start) / .milliseconds(1)
            let http = response as? HTTPURLResponse
            let outcome = BlobStoreURLProtocol.lastOutcome(for: url).map { "\($0)" } ?? "not through the cache"
            print(
                "fetch \(attempt): \(outcome), status \(http?.statusCode ?? 0), \(body.count) bytes, "
                    + String(format: "%.1f ms", milliseconds))
            for name in ["Cache-Control", "Expires", "ETag", "Last-Modified", "Age"] {
                if let value = http?.value(forHTTPHeaderField: name) { print("   \(name): \(value)") }
            }
        }
        let kept =
            if try cache.storedResponse(for: url, requestHeaders: HTTPHeaders()) == nil {
                "not stored (RFC 9111 does not let a cache keep it), or kept as a variant of its Vary header"
            } else if try await disk.contains(HTTPCache.key(for: url)) {
                "on disk and in memory"
            } else {
                "in memory only (fresh for less than 5 minutes: not worth a disk write)"
            }
        print("the response is \(kept)")
    }
}
